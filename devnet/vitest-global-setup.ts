/**
 * vitest globalSetup: one devnet on a free loopback port for the runtime tests, its URL handed
 * to the Workers pool through `provide("devnetUrl")` (read in vitest.config.ts with `inject`),
 * a second one started with `heightHeader: "bare"` (`provide("bareDevnetUrl")`) for the test
 * of that option, and a third (`provide("nodesDevnetUrl")`) whose node list only the node-record
 * tests change, so tests comparing the shared devnet's node list never see it move.
 */
import type { TestProject } from "vitest/node";
import { NEUTRAL_TEST_VARS } from "../test/neutral-words.ts";
import { readBrand } from "./brand.ts";
import { startDevnet } from "./server.ts";

declare module "vitest" {
  export interface ProvidedContext {
    devnetUrl: string;
    bareDevnetUrl: string;
    nodesDevnetUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The devnets speak the words the runtime suite's Worker is configured with.
  const brand = readBrand(NEUTRAL_TEST_VARS);
  const devnet = await startDevnet({ port: 0, brand });
  const bare = await startDevnet({ port: 0, brand, heightHeader: "bare" });
  const nodes = await startDevnet({ port: 0, brand });
  project.provide("devnetUrl", devnet.url);
  project.provide("bareDevnetUrl", bare.url);
  project.provide("nodesDevnetUrl", nodes.url);
  return async () => {
    await Promise.all([devnet.close(), bare.close(), nodes.close()]);
  };
}

/**
 * vitest globalSetup: one devnet on a free loopback port for the runtime tests, its URL handed
 * to the Workers pool through `provide("devnetUrl")` (read in vitest.config.ts with `inject`),
 * a second one started with `heightHeader: "bare"` and keeping only 5 blocks (`provide("bareDevnetUrl")`)
 * for the tests of those options, and a third (`provide("nodesDevnetUrl")`) whose node list only the node-record
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

/** The runtime suite's block time. */
export const BLOCK_MS = 200;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The devnets speak the words the runtime suite's Worker is configured with.
  const brand = readBrand(NEUTRAL_TEST_VARS);
  // Short blocks: a test that waits for the block carrying its change waits a fraction of a second.
  const blockMs = BLOCK_MS;
  const devnet = await startDevnet({ port: 0, brand, blockMs });
  const bare = await startDevnet({ port: 0, brand, heightHeader: "bare", blockMs, retainBlocks: 5 });
  const nodes = await startDevnet({ port: 0, brand, blockMs });
  project.provide("devnetUrl", devnet.url);
  project.provide("bareDevnetUrl", bare.url);
  project.provide("nodesDevnetUrl", nodes.url);
  return async () => {
    await Promise.all([devnet.close(), bare.close(), nodes.close()]);
  };
}

/**
 * vitest globalSetup: one devnet on a free loopback port for the runtime tests, its URL handed
 * to the Workers pool through `provide("devnetUrl")` (read in vitest.config.ts with `inject`),
 * and a second one started with `heightHeader: "bare"` (`provide("bareDevnetUrl")`) for the test
 * of that option.
 */
import type { TestProject } from "vitest/node";
import { startDevnet } from "./server.ts";

declare module "vitest" {
  export interface ProvidedContext {
    devnetUrl: string;
    bareDevnetUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const devnet = await startDevnet({ port: 0 });
  const bare = await startDevnet({ port: 0, heightHeader: "bare" });
  project.provide("devnetUrl", devnet.url);
  project.provide("bareDevnetUrl", bare.url);
  return async () => {
    await Promise.all([devnet.close(), bare.close()]);
  };
}

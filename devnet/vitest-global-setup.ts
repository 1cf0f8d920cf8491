/**
 * vitest globalSetup: one devnet on a free loopback port for the runtime tests, its URL handed
 * to the Workers pool through `provide("devnetUrl")` (read in vitest.config.ts with `inject`).
 */
import type { TestProject } from "vitest/node";
import { NEUTRAL_TEST_VARS } from "../test/neutral-words.ts";
import { readBrand } from "./brand.ts";
import { startDevnet } from "./server.ts";

declare module "vitest" {
  export interface ProvidedContext {
    devnetUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The devnet speaks the words the runtime suite's Worker is configured with.
  const devnet = await startDevnet({ port: 0, brand: readBrand(NEUTRAL_TEST_VARS) });
  project.provide("devnetUrl", devnet.url);
  return () => devnet.close();
}

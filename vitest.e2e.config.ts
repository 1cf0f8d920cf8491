import { defineConfig } from "vitest/config";

// End-to-end tests in Node: the devnet on 1327 and `wrangler dev` on 8797 (started by the global
// setup), real headless Chromium driven by playwright-core, and the wallet simulator.
export default defineConfig({
  test: {
    include: ["test/e2e/**/*.test.ts"],
    globalSetup: ["./test/e2e/global-setup.ts"],
    // One browser flow at a time: the machines have two cores and the flows share one server.
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});

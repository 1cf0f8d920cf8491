import { defineConfig } from "vitest/config";

// End-to-end tests in Node: the devnet and `wrangler dev` on free loopback ports (started by the
// global setup), real headless Chromium driven by playwright-core, and the wallet simulator.
export default defineConfig({
  test: {
    include: ["test/e2e/**/*.test.ts"],
    globalSetup: ["./test/e2e/global-setup.ts"],
    // One browser flow at a time: the machines have two cores and the flows share one server.
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // What a page shows after a real round trip (a simulator process, the gateway, a Durable
    // Object) can take seconds on a loaded two-core machine: a poll waits for its condition, and
    // its deadline only stops a stuck test (1 s, the default, and then 10 s were missed under load).
    expect: { poll: { timeout: 60_000 } },
  },
});

import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { NEUTRAL_TEST_VARS } from "./test/neutral-words.ts";

// Runtime tests: the Worker, its Durable Objects and the Cache API run in workerd.
export default defineConfig({
  plugins: [
    // The gateway tests' upstream is a real devnet that globalSetup starts on a free port. The
    // deployment's own nodes, which its Durable Objects read from the configuration, are two
    // mounts of it, given up on within seconds so that a test of every node timing out is short.
    cloudflareTest(({ inject }) => ({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        bindings: {
          DEVNET_URL: inject("devnetUrl"),
          ...NEUTRAL_TEST_VARS,
          UPSTREAM_URLS: ["node-1", "node-2"].map((tag) => `${inject("devnetUrl")}/~${tag}`).join(","),
          UPSTREAM_TIMEOUT_MS: "1000",
          UPSTREAM_BUDGET_MS: "2500",
        },
      },
    })),
  ],
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/e2e/**"],
    globalSetup: ["./devnet/vitest-global-setup.ts"],
    setupFiles: ["./test/setup.ts"],
    deps: {
      // @cosmjs/encoding is CommonJS requiring ESM-only @scure/base; pre-bundle it for workerd.
      optimizer: { ssr: { enabled: true, include: ["@cosmjs/encoding"] } },
    },
  },
});

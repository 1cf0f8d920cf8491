import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { NEUTRAL_TEST_VARS } from "./test/neutral-words.ts";

// Runtime tests: the Worker, its Durable Objects and the Cache API run in workerd.
export default defineConfig({
  plugins: [
    // The gateway tests' upstream is a real devnet that globalSetup starts on a free port.
    cloudflareTest(({ inject }) => ({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: { bindings: { DEVNET_URL: inject("devnetUrl"), ...NEUTRAL_TEST_VARS } },
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

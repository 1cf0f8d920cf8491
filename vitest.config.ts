import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

// Runtime tests: the Worker, its Durable Objects and the Cache API run in workerd.
export default defineConfig({
  plugins: [
    // The gateway's upstream in tests is a real devnet started by globalSetup on a free port.
    cloudflareTest(({ inject }) => ({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: { bindings: { UPSTREAM_URLS: inject("devnetUrl"), DEVNET_URL: inject("devnetUrl") } },
    })),
  ],
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/e2e/**"],
    globalSetup: ["./devnet/vitest-global-setup.ts"],
    deps: {
      // @cosmjs/encoding is CommonJS requiring ESM-only @scure/base; pre-bundle it for workerd.
      optimizer: { ssr: { enabled: true, include: ["@cosmjs/encoding"] } },
    },
  },
});

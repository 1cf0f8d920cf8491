import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

// Runtime tests: the Worker, its Durable Objects and the Cache API run in workerd.
export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.toml" },
    }),
  ],
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/e2e/**"],
    deps: {
      // @cosmjs/encoding is CommonJS requiring ESM-only @scure/base; pre-bundle it for workerd.
      optimizer: { ssr: { enabled: true, include: ["@cosmjs/encoding"] } },
    },
  },
});

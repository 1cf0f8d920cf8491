import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { HOST_TEST_VARS } from "./test/host-settings.ts";
import { NEUTRAL_TEST_VARS } from "./test/neutral-words.ts";

// Runtime tests: the Worker, its Durable Objects and the Cache API run in workerd.
export default defineConfig({
  plugins: [
    // The upstream is a real devnet and the host's webhook endpoint a real receiver, both started by
    // globalSetup on free ports. The deployment's own nodes, which its Durable Objects read from the
    // configuration, are two mounts of the devnet, given up on within seconds so that a test of
    // every node timing out is short (the gateway tests build their own upstream sets on it).
    // The onboarding index's migrations travel as a binding; test/setup.ts applies them to each file's database.
    cloudflareTest(async ({ inject }) => ({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        bindings: {
          DEVNET_URL: inject("devnetUrl"),
          WEBHOOK_RECEIVER_URL: inject("webhookUrl"),
          ...NEUTRAL_TEST_VARS,
          UPSTREAM_URLS: ["node-1", "node-2"].map((tag) => `${inject("devnetUrl")}/~${tag}`).join(","),
          UPSTREAM_TIMEOUT_MS: "1000",
          UPSTREAM_BUDGET_MS: "2500",
          ...HOST_TEST_VARS,
          HOST_WEBHOOK_URL: inject("webhookUrl"),
          // The receiver's time to answer, shorter than the deployed 10 s so that a hang costs the suite 2 s.
          HOST_WEBHOOK_TIMEOUT_MS: "2000",
          INDEX_MIGRATIONS: await readD1Migrations("./migrations"),
        },
        // A metrics dataset that keeps the points it is given, which the local GATEWAY_METRICS does not
        // (test/middleware/metrics-double.js): the metrics tests run the app with it as GATEWAY_METRICS, and
        // METRICS_POINTS reads the points back.
        serviceBindings: {
          METRICS_DATASET: { name: "gateway-metrics", entrypoint: "MetricsDataset" },
          METRICS_POINTS: "gateway-metrics",
        },
        workers: [
          {
            name: "gateway-metrics",
            modules: true,
            scriptPath: "./test/middleware/metrics-double.js",
            compatibilityDate: "2026-11-09",
          },
        ],
      },
    })),
  ],
  test: {
    include: ["test/**/*.test.ts"],
    // A guard against a stuck test, not a speed limit: each test waits on its own conditions, and a
    // property run of hundreds of cases takes seconds on a loaded two-core machine (5 s, the default, was missed).
    testTimeout: 60_000,
    hookTimeout: 60_000,
    exclude: ["test/e2e/**"],
    // One workerd process and module graph for every file (about 4 s less per file); test/setup.ts resets the
    // bindings' storage before each file, and each test resets the gateway's isolate state, as isolation did.
    isolate: false,
    // The OpenAPI template is an asset the build writes; written again here so it matches the code under test.
    globalSetup: [
      "./scripts/openapi-template.ts",
      "./devnet/vitest-global-setup.ts",
      "./test/node/webhook-receiver-setup.ts",
      "./test/simulation/settings-setup.ts",
    ],
    setupFiles: ["./test/setup.ts"],
    deps: {
      // @cosmjs/encoding is CommonJS requiring ESM-only @scure/base (and @cosmjs/crypto @scure/bip39); pre-bundle
      // them, and the CosmJS clients the RPC face's tests use, for workerd.
      optimizer: {
        ssr: {
          enabled: true,
          include: ["@cosmjs/encoding", "@cosmjs/crypto", "@cosmjs/stargate", "@cosmjs/tendermint-rpc"],
        },
      },
    },
  },
});

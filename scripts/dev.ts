/**
 * `npm run dev`: the Worker under `wrangler dev` on http://127.0.0.1:8787, offline.
 * Extra arguments go to wrangler (for example `npm run dev -- --var CHAIN_ID:other-1`).
 */
import { spawn } from "node:child_process";
import { WRANGLER_OFFLINE_ENV } from "./offline-env.ts";

const wrangler = spawn(
  "wrangler",
  ["dev", "--ip", "127.0.0.1", "--port", "8787", "--show-interactive-dev-session=false", ...process.argv.slice(2)],
  { stdio: "inherit", env: { ...process.env, ...WRANGLER_OFFLINE_ENV } },
);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => wrangler.kill(signal));
}
wrangler.on("exit", (code) => process.exit(code ?? 0));

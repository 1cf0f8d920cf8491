/**
 * `npm run dev`: the local devnet (a stand-in LCD node, http://127.0.0.1:1317) and the Worker
 * under `wrangler dev` on http://127.0.0.1:8787, offline, with the onboarding index's migrations
 * applied to the local database first; Ctrl-C stops both.
 * Extra arguments go to wrangler (for example `npm run dev -- --var CHAIN_ID:other-1`).
 * DEVNET_PORT moves the devnet; DEVNET=off skips it (for a real upstream in UPSTREAM_URLS).
 */
import { spawn, spawnSync } from "node:child_process";
import { startDevnet, type Devnet } from "../devnet/server.ts";
import { WRANGLER_OFFLINE_ENV } from "./offline-env.ts";

// The onboarding index's tables (migrations/) in the same local state the server will use.
const migrated = spawnSync(
  "wrangler",
  ["d1", "migrations", "apply", "ONBOARDING_INDEX", "--local", ...stateArgs(process.argv.slice(2))],
  {
    stdio: "inherit",
    env: { ...process.env, ...WRANGLER_OFFLINE_ENV },
  },
);
if (migrated.status !== 0) process.exit(migrated.status ?? 1);

const devnetPort = Number(process.env.DEVNET_PORT ?? 1317);
let devnet: Devnet | null = null;
if (process.env.DEVNET !== "off") {
  try {
    devnet = await startDevnet({ port: devnetPort });
    console.log(`devnet: local LCD stand-in on ${devnet.url} (development only)`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EADDRINUSE") throw err;
    console.warn(
      `devnet: port ${devnetPort} is already in use, so no devnet was started; the gateway will ask whatever answers there ` +
        `(another devnet?). Free the port, or set DEVNET_PORT and --var UPSTREAM_URLS:http://127.0.0.1:<port>.`,
    );
  }
}

const wrangler = spawn(
  "wrangler",
  ["dev", "--ip", "127.0.0.1", "--port", "8787", "--show-interactive-dev-session=false", ...process.argv.slice(2)],
  { stdio: "inherit", env: { ...process.env, ...WRANGLER_OFFLINE_ENV } },
);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => wrangler.kill(signal));
}
wrangler.on("exit", (code) => {
  void (devnet?.close() ?? Promise.resolve()).then(() => process.exit(code ?? 0));
});

/** What of `args` names the local state and the environment (`--persist-to <dir>`, `--env <name>`): the migrations go where dev looks. */
function stateArgs(args: string[]): string[] {
  const picked: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (/^(--persist-to|--env|-e)=/.test(arg)) picked.push(arg);
    else if (/^(--persist-to|--env|-e)$/.test(arg) && i + 1 < args.length) picked.push(arg, args[++i]!);
  }
  return picked;
}

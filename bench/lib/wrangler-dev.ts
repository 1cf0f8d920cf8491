/**
 * Starts `wrangler dev` for a benchmark or an end-to-end run: its own port, its own state
 * directory, offline, and stopped with the returned function.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WRANGLER_OFFLINE_ENV } from "../../scripts/offline-env.ts";

export interface LocalWorker {
  url: string;
  stop(): Promise<void>;
}

/**
 * `persistTo` keeps Durable Object and cache state in a directory the caller owns (and can hand
 * to a second start, to restart the server mid-session); without it a temporary one is used.
 * `cwd` runs another copy of the project (scripts/tree-copy.ts) instead of this one.
 */
export async function startWranglerDev(options: {
  port: number;
  vars?: Record<string, string>;
  persistTo?: string;
  cwd?: string;
}): Promise<LocalWorker> {
  const persistTo = options.persistTo ?? mkdtempSync(join(tmpdir(), "chain-edge-"));
  const args = [
    "dev",
    "--ip",
    "127.0.0.1",
    "--port",
    String(options.port),
    "--persist-to",
    persistTo,
    "--show-interactive-dev-session=false",
  ];
  for (const [name, value] of Object.entries(options.vars ?? {})) args.push("--var", `${name}:${value}`);
  const child = spawn("wrangler", args, {
    cwd: options.cwd,
    env: { ...process.env, ...WRANGLER_OFFLINE_ENV },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  child.stdout.on("data", (chunk) => (log += chunk));
  child.stderr.on("data", (chunk) => (log += chunk));
  const url = `http://127.0.0.1:${options.port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited early:\n${log}`);
    try {
      if ((await fetch(`${url}/api/config`)).ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`wrangler dev did not answer within 60 s:\n${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    url,
    async stop() {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      if (child.exitCode === null) child.kill("SIGKILL");
      if (!options.persistTo) rmSync(persistTo, { recursive: true, force: true });
    },
  };
}

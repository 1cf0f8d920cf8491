/**
 * A `wrangler dev` with the given variables, fresh state (the onboarding index's migrations
 * applied to it) and a free loopback port: the suite's server, and a test's own when it needs
 * other settings.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WRANGLER_OFFLINE_ENV } from "../../../scripts/offline-env.ts";
import { freeLoopbackPort } from "./ports.ts";

export interface WranglerDev {
  url: string;
  stop(): Promise<void>;
}

/** Starts `wrangler dev` with `vars` (`NAME: value`) and resolves once `/api/config` answers. */
export async function startWranglerDev(vars: Record<string, string>): Promise<WranglerDev> {
  const url = `http://127.0.0.1:${await freeLoopbackPort()}`;
  const persist = mkdtempSync(join(tmpdir(), "e2e-wrangler-"));
  const migrated = spawnSync("wrangler", ["d1", "migrations", "apply", "ONBOARDING_INDEX", "--local", "--persist-to", persist], { env: { ...process.env, ...WRANGLER_OFFLINE_ENV }, encoding: "utf8" });
  if (migrated.status !== 0) {
    rmSync(persist, { recursive: true, force: true });
    throw new Error(`the index's migrations did not apply:\n${migrated.stdout}${migrated.stderr}`);
  }
  const args = ["dev", "--ip", "127.0.0.1", "--port", new URL(url).port, "--show-interactive-dev-session=false", "--persist-to", persist];
  for (const [name, value] of Object.entries(vars)) args.push("--var", `${name}:${value}`);
  const child = spawn("wrangler", args, { env: { ...process.env, ...WRANGLER_OFFLINE_ENV }, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  child.stdout!.on("data", (chunk) => (log += chunk));
  child.stderr!.on("data", (chunk) => (log += chunk));

  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      try {
        process.kill(-child.pid!, "SIGTERM");
      } catch {
        // Already gone.
      }
      await exited;
    }
    rmSync(persist, { recursive: true, force: true });
  };
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`wrangler dev did not come up on ${url}:\n${log}`);
    }
    const answer = await fetch(`${url}/api/config`).then((r) => ({ status: r.status, text: r.text() }), () => null);
    if (answer?.status === 200) return { url, stop };
    if (answer?.status === 500) {
      // Up, but refusing its configuration: waiting longer changes nothing.
      const reason = await answer.text;
      await stop();
      throw new Error(`wrangler dev on ${url} refuses its configuration: ${reason}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

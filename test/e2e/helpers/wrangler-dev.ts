/**
 * A `wrangler dev` with the given variables, fresh state (the onboarding index's migrations
 * applied to it) and a free loopback port: the suite's server, and a test's own when it needs
 * other settings.
 */
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WRANGLER_OFFLINE_ENV } from "../../../scripts/offline-env.ts";
import { freeLoopbackPort } from "./ports.ts";

export interface WranglerDev {
  url: string;
  /** What the server printed so far (its log lines). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts `wrangler dev` with `vars` (`NAME: value`) on `port` (a free one by default) and resolves
 * once `/api/config` answers.
 */
export async function startWranglerDev(vars: Record<string, string>, port?: number): Promise<WranglerDev> {
  const persist = mkdtempSync(join(tmpdir(), "e2e-wrangler-"));
  // Not spawnSync: the caller's process (the global setup holds the devnet) keeps answering meanwhile.
  const migrated = await new Promise<string | null>((done) =>
    execFile(
      "wrangler",
      ["d1", "migrations", "apply", "ONBOARDING_INDEX", "--local", "--persist-to", persist],
      { env: { ...process.env, ...WRANGLER_OFFLINE_ENV } },
      (error, stdout, stderr) => done(error ? `${stdout}${stderr}` : null),
    ),
  );
  if (migrated !== null) {
    rmSync(persist, { recursive: true, force: true });
    throw new Error(`the index's migrations did not apply:\n${migrated}`);
  }
  // A port free when asked can be taken before wrangler binds it (another suite's server, or any process's outgoing
  // connection given it as its local port: a full npm test run saw "Address already in use"): new ports, three tries.
  for (let attempt = 1; ; attempt++) {
    try {
      return await serve(vars, persist, port ?? (await freeLoopbackPort()));
    } catch (error) {
      if (!(error instanceof PortTaken) || port !== undefined || attempt === 3) {
        rmSync(persist, { recursive: true, force: true });
        throw error;
      }
    }
  }
}

/** wrangler dev could not listen on a port it was given. */
class PortTaken extends Error {}

async function serve(vars: Record<string, string>, persist: string, port: number): Promise<WranglerDev> {
  const url = `http://127.0.0.1:${port}`;
  // The inspector's port too: wrangler's default (9229, else the next free one) is taken by two servers starting at
  // once.
  const inspectorPort = String(await freeLoopbackPort());
  const args = [
    "dev",
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--inspector-port",
    inspectorPort,
    "--show-interactive-dev-session=false",
    "--persist-to",
    persist,
  ];
  for (const [name, value] of Object.entries(vars)) args.push("--var", `${name}:${value}`);
  const child = spawn("wrangler", args, {
    env: { ...process.env, ...WRANGLER_OFFLINE_ENV },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  child.stdout!.on("data", (chunk) => (log += chunk));
  child.stderr!.on("data", (chunk) => (log += chunk));

  const end = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      // Already gone.
    }
    await exited;
  };
  const stop = async () => {
    await end();
    rmSync(persist, { recursive: true, force: true });
  };
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await end();
      if (/Address already in use/.test(log)) throw new PortTaken(`port ${port} or ${inspectorPort} was taken`);
      throw new Error(`wrangler dev did not come up on ${url}:\n${log}`);
    }
    // Asked only once this server says it listens: until then an answer on the port is another process's.
    const answer = !log.includes(`Ready on ${url}`)
      ? null
      : await fetch(`${url}/api/config`).then(
          (r) => ({ status: r.status, text: r.text() }),
          () => null,
        );
    if (answer?.status === 200) return { url, output: () => log, stop };
    if (answer?.status === 500) {
      // Up, but refusing its configuration: waiting longer changes nothing.
      const reason = await answer.text;
      await end();
      throw new Error(`wrangler dev on ${url} refuses its configuration: ${reason}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * Resolves once the server at `url` answers `/api/config` (one started elsewhere, in the background); throws after
 * `waitMs`.
 */
export async function untilServing(url: string, waitMs = 90_000): Promise<void> {
  const deadline = Date.now() + waitMs;
  while (
    !(await fetch(`${url}/api/config`).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (Date.now() > deadline) throw new Error(`nothing answered on ${url} within ${waitMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

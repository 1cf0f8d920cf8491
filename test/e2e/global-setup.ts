/**
 * Global setup of the e2e suite: the devnet and the Worker under `wrangler dev` (fresh
 * `--persist-to` directory, gateway pointed at the devnet, the host API's key and webhook settings
 * pointing at a loopback receiver), each on a free loopback port so that runs side by side do not
 * meet, all stopped afterwards. The browser is chosen here, once
 * (helpers/chromium.ts); with none the run fails.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { startDevnet } from "../../devnet/server.ts";
import { WRANGLER_OFFLINE_ENV } from "../../scripts/offline-env.ts";
import { chooseChromium, type ChromiumChoice } from "./helpers/chromium.ts";
import { freeLoopbackPort } from "./helpers/ports.ts";
import { startWebhookReceiver } from "./helpers/webhook-receiver.ts";

/** Sessions (and so sign requests) live this long in the e2e server, so expiry tests end soon. */
export const SESSION_TTL_SECONDS = 25;

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    devnetUrl: string;
    chromium: ChromiumChoice;
    sessionTtlSeconds: number;
    /** A bearer key of the host API. */
    hostApiKey: string;
    /** The webhook secret (`whsec_…`) the server signs events with. */
    webhookSecret: string;
    /** `GET` lists the events the receiver got. */
    webhooksReceivedUrl: string;
  }
}

async function waitForServer(url: string, server: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`wrangler dev exited (${server.exitCode}):\n${output()}`);
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`wrangler dev did not answer ${url} within 90 s:\n${output()}`);
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = performance.now();
  const chromium = await chooseChromium();
  console.log(`e2e browser: ${chromium.executablePath} (${chromium.source}, ready in ${Math.round(performance.now() - started)} ms)`);

  const devnet = await startDevnet({ port: 0, host: "127.0.0.1" });
  const receiver = await startWebhookReceiver();
  const hostApiKey = randomBytes(24).toString("hex");
  const webhookSecret = `whsec_${randomBytes(32).toString("base64")}`;
  const baseUrl = `http://127.0.0.1:${await freeLoopbackPort()}`;
  const persist = mkdtempSync(join(tmpdir(), "e2e-wrangler-"));
  let log = "";
  const wrangler = spawn(
    "wrangler",
    [
      "dev", "--ip", "127.0.0.1", "--port", new URL(baseUrl).port, "--show-interactive-dev-session=false",
      "--persist-to", persist,
      "--var", `UPSTREAM_URLS:${devnet.url}`,
      "--var", `SESSION_TTL_MAX_SECONDS:${SESSION_TTL_SECONDS}`,
      // Every test page opens a session; the per-IP create limit is tested in the runtime suite.
      "--var", "RATE_LIMITS:off",
      "--var", `HOST_API_KEYS:${hostApiKey}`,
      "--var", `HOST_WEBHOOK_URL:${receiver.url}`,
      "--var", `HOST_WEBHOOK_SECRET:${webhookSecret}`,
      // Onboardings move as soon as the chain does, so the tests wait seconds, not blocks.
      "--var", "ONBOARDING_CHECK_SECONDS:1",
    ],
    { env: { ...process.env, ...WRANGLER_OFFLINE_ENV }, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  wrangler.stdout!.on("data", (chunk) => (log += chunk));
  wrangler.stderr!.on("data", (chunk) => (log += chunk));

  const stop = async () => {
    if (wrangler.exitCode === null) {
      const exited = new Promise((resolve) => wrangler.once("exit", resolve));
      try {
        process.kill(-wrangler.pid!, "SIGTERM");
      } catch {
        // Already gone.
      }
      await exited;
    }
    await devnet.close();
    await receiver.close();
    rmSync(persist, { recursive: true, force: true });
  };
  try {
    await waitForServer(`${baseUrl}/api/config`, wrangler, () => log);
  } catch (error) {
    await stop();
    throw error;
  }
  project.provide("baseUrl", baseUrl);
  project.provide("devnetUrl", devnet.url);
  project.provide("chromium", chromium);
  project.provide("sessionTtlSeconds", SESSION_TTL_SECONDS);
  project.provide("hostApiKey", hostApiKey);
  project.provide("webhookSecret", webhookSecret);
  project.provide("webhooksReceivedUrl", receiver.receivedUrl);
  return stop;
}

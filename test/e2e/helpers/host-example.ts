/**
 * Runs the host example (`scripts/host-example.ts`) as `npm run host:example` would, on a free port, and signs events
 * for it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";

export interface HostExample {
  url: string;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** Resolves once its output matches `pattern`. */
  waitFor(pattern: RegExp): Promise<string>;
  stop(): Promise<void>;
}

/** A fresh Standard Webhooks secret: whsec_ + base64 of 32 random bytes. */
export const freshSecret = () => `whsec_${randomBytes(32).toString("base64")}`;

export async function startHostExample(secret: string, ...args: string[]): Promise<HostExample> {
  const child: ChildProcess = spawn(process.execPath, ["scripts/host-example.ts", "--port", "0", ...args], {
    env: { ...process.env, HOST_WEBHOOK_SECRET: secret },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  const waiters: (() => void)[] = [];
  const append = (chunk: Buffer) => {
    log += chunk.toString("utf8");
    for (const wake of waiters.splice(0)) wake();
  };
  child.stdout!.on("data", append);
  child.stderr!.on("data", append);
  child.once("exit", () => {
    for (const wake of waiters.splice(0)) wake();
  });

  const waitFor = async (pattern: RegExp): Promise<string> => {
    for (;;) {
      const match = pattern.exec(log);
      if (match) return match[1] ?? match[0];
      if (child.exitCode !== null)
        throw new Error(`the host example exited (${child.exitCode}) before printing ${pattern}:\n${log}`);
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  const url = await waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+\/)/);
  return {
    url,
    output: () => log,
    waitFor,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

export interface Delivery {
  id?: string;
  /** The webhook-timestamp; default now. */
  at?: Date;
  /** Replaces the signature the secret makes. */
  signature?: string;
  /** Signs with this secret instead. */
  secret?: string;
}

/** POSTs `event` as the service does: webhook-id, webhook-timestamp and webhook-signature by Webhook#sign. */
export async function deliver(url: string, secret: string, event: unknown, delivery: Delivery = {}): Promise<Response> {
  const body = typeof event === "string" ? event : JSON.stringify(event);
  const id = delivery.id ?? `msg_${randomBytes(12).toString("hex")}`;
  const at = delivery.at ?? new Date();
  const signature = delivery.signature ?? new Webhook(delivery.secret ?? secret).sign(id, at, body);
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": signature,
    },
    body,
  });
}

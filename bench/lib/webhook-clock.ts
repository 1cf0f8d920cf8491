/**
 * A Standard Webhooks receiver for benchmarks, on loopback: verifies every event with the
 * `standardwebhooks` package, answers 204 at once, and records when each arrived beside its
 * `webhook-timestamp`, so a run can time an onboarding's events from the chain changing.
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

/** One verified event as it arrived. */
interface ClockedEvent {
  /** `webhook-id`. */
  id: string;
  type: string;
  onboarding: string;
  /** Arrival, ms since the epoch. */
  arrivedAt: number;
  /** The `webhook-timestamp` header: Unix seconds of the attempt. */
  timestamp: number;
}

export interface WebhookClock {
  url: string;
  /** The signing secret it verifies with (HOST_WEBHOOK_SECRET): whsec_ + base64 of 32 random bytes. */
  secret: string;
  /** The first `type` event of `onboarding`, now or once it arrives; rejects after `timeoutMs`. */
  arrival(onboarding: string, type: string, timeoutMs: number): Promise<ClockedEvent>;
  /** Every verified event so far, repeats included. */
  events(): readonly ClockedEvent[];
  /** Requests that did not verify (answered 401). */
  refused(): number;
  /** Down: every request is answered 503 unread (a receiver outage); up again: verified as before. */
  setDown(down: boolean): void;
  /** When each request answered 503 while down arrived, ms since the epoch. */
  requestsWhileDown(): readonly number[];
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startWebhookClock(): Promise<WebhookClock> {
  const secret = `whsec_${randomBytes(32).toString("base64")}`;
  const webhook = new Webhook(secret);
  const seen: ClockedEvent[] = [];
  const waiters = new Map<string, ((event: ClockedEvent) => void)[]>();
  let refused = 0;
  let down = false;
  const whileDown: number[] = [];
  const key = (onboarding: string, type: string) => `${onboarding} ${type}`;

  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    if (down) {
      whileDown.push(Date.now());
      return void res.writeHead(503).end();
    }
    const arrivedAt = Date.now();
    const header = (name: string) => String(req.headers[name] ?? "");
    let event: { type: string; data: { id: string } };
    try {
      event = webhook.verify(body, {
        "webhook-id": header("webhook-id"),
        "webhook-timestamp": header("webhook-timestamp"),
        "webhook-signature": header("webhook-signature"),
      }) as typeof event;
    } catch {
      refused++;
      return void res.writeHead(401).end();
    }
    res.writeHead(204).end();
    const clocked = {
      id: header("webhook-id"),
      type: event.type,
      onboarding: event.data.id,
      arrivedAt,
      timestamp: Number(header("webhook-timestamp")),
    };
    seen.push(clocked);
    for (const wake of waiters.get(key(clocked.onboarding, clocked.type))?.splice(0) ?? []) wake(clocked);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    secret,
    arrival(onboarding, type, timeoutMs) {
      const already = seen.find((e) => e.onboarding === onboarding && e.type === type);
      if (already) return Promise.resolve(already);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no ${type} for ${onboarding} within ${timeoutMs} ms`)),
          timeoutMs,
        );
        const list = waiters.get(key(onboarding, type)) ?? [];
        list.push((event) => {
          clearTimeout(timer);
          resolve(event);
        });
        waiters.set(key(onboarding, type), list);
      });
    },
    events: () => seen,
    refused: () => refused,
    setDown: (value) => void (down = value),
    requestsWhileDown: () => whileDown,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * A Standard Webhooks receiver: verifies every request with the `standardwebhooks` package
 * (signature over "<webhook-id>.<webhook-timestamp>.<raw body>", timestamp within 5 minutes),
 * answers 401 to anything that does not verify, and hands each event to `handle` once per
 * webhook-id. Delivery is at least once, so a repeated id answers 2xx without handling it again;
 * a handler that fails answers 500 and forgets the id, so the service's retry tries again.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

/** The onboarding an event carries (the fields this example reads). */
export interface Onboarding {
  id: string;
  status: string;
  operator: string;
  label: string;
  reference: string | null;
  payout: string | null;
  node: { payout_recipient?: string; height?: number };
  commands?: { update_node: string; payout_recipient_line: string };
  problem?: { reason: string; message: string };
}

export interface OnboardingEvent {
  type: string;
  timestamp: string;
  data: Onboarding;
}

export interface ReceiverOptions {
  /** `whsec_` + base64 of the key: HOST_WEBHOOK_SECRET. */
  secret: string;
  port: number;
  /** Called once per webhook-id with a verified event; a throw answers 500 so the event comes again. */
  handle(event: OnboardingEvent, id: string): Promise<void>;
  log(line: string): void;
}

export interface Receiver {
  url: string;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1 << 20;
/** Ids remembered for deduplication; a real host keeps them in its database. */
const REMEMBERED_IDS = 10_000;

class Refusal extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Refusal(413, "body too large");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function answer(res: ServerResponse, status: number, body: Record<string, unknown>): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

/** Starts the receiver on 127.0.0.1; rejects when the port is taken or the secret is unusable. */
export async function startReceiver(options: ReceiverOptions): Promise<Receiver> {
  if (!options.secret.startsWith("whsec_"))
    throw new Error("the webhook secret must start with whsec_ (HOST_WEBHOOK_SECRET)");
  const webhook = new Webhook(options.secret);
  // webhook-id → the handling of that event (done, or still running for a retry that arrives meanwhile).
  const taken = new Map<string, Promise<void>>();

  async function takeOnce(id: string, event: OnboardingEvent): Promise<boolean> {
    const running = taken.get(id);
    if (running) {
      await running;
      return false;
    }
    const job = options.handle(event, id);
    taken.set(id, job);
    if (taken.size > REMEMBERED_IDS) taken.delete(taken.keys().next().value!);
    try {
      await job;
    } catch (error) {
      taken.delete(id);
      throw error;
    }
    return true;
  }

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== "POST") throw new Refusal(405, "POST only");
    const body = await readBody(req);
    const headers = {
      "webhook-id": String(req.headers["webhook-id"] ?? ""),
      "webhook-timestamp": String(req.headers["webhook-timestamp"] ?? ""),
      "webhook-signature": String(req.headers["webhook-signature"] ?? ""),
    };
    try {
      webhook.verify(body, headers, { jsonParse: false });
    } catch (error) {
      throw new Refusal(401, `not verified: ${(error as Error).message}`);
    }
    let event: OnboardingEvent;
    try {
      event = JSON.parse(body) as OnboardingEvent;
    } catch {
      throw new Refusal(400, "verified, but the body is not JSON");
    }
    const id = headers["webhook-id"];
    try {
      const first = await takeOnce(id, event);
      if (!first) options.log(`${id} again: already handled, not repeated`);
      answer(res, 200, { received: id, duplicate: !first });
    } catch (error) {
      options.log(`${id} ${event.type}: handling failed, answering 500 so it comes again: ${(error as Error).message}`);
      answer(res, 500, { error: "handling failed; deliver again" });
    }
  }

  const server = createServer((req, res) => {
    serve(req, res).catch((error: unknown) => {
      const refusal = error instanceof Refusal ? error : new Refusal(500, String(error));
      options.log(`refused ${req.method} ${req.url} (${refusal.status}): ${refusal.message}`);
      if (!res.headersSent) answer(res, refusal.status, { error: refusal.message });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

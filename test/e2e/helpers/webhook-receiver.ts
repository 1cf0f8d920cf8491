/**
 * The host's side in the e2e run: a loopback HTTP server that takes the service's webhook events
 * (any POST: 204) and lists what it received at `GET /received`, raw bodies and headers, so that
 * a test verifies the signatures itself. Started by the global setup.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** One delivery as it arrived. */
export interface ReceivedEvent {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: string;
}

/** Starts the receiver on a free loopback port; `url` is where events go. */
export async function startWebhookReceiver(): Promise<{ url: string; receivedUrl: string; close(): Promise<void> }> {
  const received: ReceivedEvent[] = [];
  const server = createServer((request, response) => {
    if (request.method === "GET" && request.url === "/received") {
      response.writeHead(200, { "content-type": "application/json" });
      return response.end(JSON.stringify(received));
    }
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(", ") : (value ?? "")]));
      received.push({ path: request.url ?? "/", headers, body: Buffer.concat(chunks).toString("utf8"), at: new Date().toISOString() });
      response.writeHead(request.method === "POST" ? 204 : 405).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/hooks`,
    receivedUrl: `${origin}/received`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

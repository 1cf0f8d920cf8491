/**
 * A host's webhook endpoint for the runtime and browser suites, in Node on a free loopback port: it keeps every
 * delivery it receives (headers and the raw body) and answers each onboarding's deliveries as a
 * test planned: a status, `hang` (no answer for 15 s, past the sender's 10 s limit), `redirect`
 * (a 307 elsewhere) or `down` (the connection is closed at once); 204 when nothing is planned.
 *
 *   POST /hook                         the endpoint
 *   POST /__receiver/plan              {onboarding, answers: [204 | 500 | "hang" | "redirect" | "down", …]}
 *   GET  /__receiver/deliveries?onboarding=ob_…   [{headers, body, answer}]
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

type PlannedAnswer = number | "hang" | "redirect" | "down";
interface Delivery {
  headers: Record<string, string>;
  body: string;
  answer: PlannedAnswer;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function onboardingOf(body: string): string {
  try {
    return String((JSON.parse(body) as { data?: { id?: unknown } }).data?.id ?? "");
  } catch {
    return "";
  }
}

export async function startWebhookReceiver(): Promise<{ url: string; deliveriesUrl: string; close(): Promise<void> }> {
  const plans = new Map<string, PlannedAnswer[]>();
  const deliveries = new Map<string, Delivery[]>();
  const hanging = new Set<NodeJS.Timeout>();
  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://receiver");
    const body = await readBody(request);
    if (request.method === "POST" && url.pathname === "/__receiver/plan") {
      const plan = JSON.parse(body) as { onboarding: string; answers: PlannedAnswer[] };
      plans.set(plan.onboarding, [...plan.answers]);
      return response.writeHead(201).end();
    }
    if (request.method === "GET" && url.pathname === "/__receiver/deliveries") {
      response.writeHead(200, { "content-type": "application/json" });
      return response.end(JSON.stringify(deliveries.get(url.searchParams.get("onboarding") ?? "") ?? []));
    }
    if (request.method !== "POST" || url.pathname !== "/hook") return response.writeHead(404).end();
    const onboarding = onboardingOf(body);
    const answer = plans.get(onboarding)?.shift() ?? 204;
    const list = deliveries.get(onboarding) ?? [];
    list.push({
      headers: Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)])),
      body,
      answer,
    });
    deliveries.set(onboarding, list);
    if (answer === "down") return request.socket.destroy();
    if (answer === "redirect") return response.writeHead(307, { location: "/hook-elsewhere" }).end();
    if (answer === "hang") {
      const timer = setTimeout(() => (hanging.delete(timer), response.writeHead(200).end()), 15_000);
      return hanging.add(timer);
    }
    response.writeHead(answer).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    deliveriesUrl: `http://127.0.0.1:${port}/__receiver/deliveries`,
    close: async () => {
      for (const timer of hanging) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

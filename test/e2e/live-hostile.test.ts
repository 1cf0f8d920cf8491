/**
 * The live face under attack, from outside (docs/GATEWAY.md, "The live face"): hostile queries
 * naming Object members cost the honest subscribers nothing; a socket flooding frames is refused
 * past its rate and closed while the others of its shard get every height in order; one IP holding
 * its cap of sockets is refused the next one in the one error shape, and served again once it
 * closes one. The second edge has the limits on and a cap of 22, so all its sockets (one loopback
 * IP) share one shard with the flood.
 */
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  collectHeights,
  cometClient,
  consecutive,
  type LiveStack,
  startLiveStack,
  until,
} from "./helpers/live-stack.ts";
import { startWranglerDev, type WranglerDev } from "./helpers/wrangler-dev.ts";

/** The capped edge's sockets per IP (LIVE_SOCKETS_PER_IP). */
const CAP = 22;

let stack: LiveStack;
let capped: WranglerDev;
beforeAll(async () => {
  stack = await startLiveStack();
  capped = await startWranglerDev({
    UPSTREAM_URLS: stack.nodes[0].url,
    RPC_UPSTREAM_URLS: stack.nodes.map((n) => `${n.url}/rpc`).join(","),
    RATE_LIMITS: "on",
    LIVE_SOCKETS_PER_IP: String(CAP),
  });
});
afterAll(async () => {
  await capped?.stop();
  await stack?.stop();
});

interface Listener {
  ws: WebSocket;
  /** Each NewBlock height with the ms it arrived. */
  heights: { height: number; at: number }[];
  errors: { code: number; data: string }[];
  closed: { code: number; reason: string } | null;
}

/** A raw socket on `url` subscribed to `query`, once the subscription is answered. */
async function listen(url: string, query = "tm.event='NewBlock'"): Promise<Listener> {
  const ws = new WebSocket(url);
  const listener: Listener = { ws, heights: [], errors: [], closed: null };
  let answered = false;
  ws.on("message", (data) => {
    const frame = JSON.parse(String(data)) as {
      result?: { data?: { value: { block: { header: { height: string } } } } };
      error?: { code: number; data: string };
    };
    if (frame.error) listener.errors.push(frame.error);
    else if (frame.result?.data)
      listener.heights.push({ height: Number(frame.result.data.value.block.header.height), at: Date.now() });
    else answered = true;
  });
  ws.on("close", (code, reason) => (listener.closed = { code, reason: String(reason) }));
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "subscribe", params: { query } }));
  await until(() => answered || listener.errors.length > 0);
  return listener;
}

const last = (l: Listener) => l.heights.at(-1)?.height ?? 0;
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

describe("hostile queries", () => {
  it("after 48 sockets subscribe constructor, __proto__ and toString, 40 honest sockets get every height", async () => {
    const clients = Array.from({ length: 40 }, () => cometClient(stack));
    const seen = clients.map(collectHeights);
    await until(() => seen.every((s) => s.heights.length >= 2));
    const tags = ["constructor", "__proto__", "toString"];
    const hostile = await Promise.all(
      Array.from({ length: 48 }, (_, i) =>
        listen(`${stack.rpcBase}/websocket`, `tm.event='NewBlock' AND ${tags[i % 3]} EXISTS`),
      ),
    );
    for (const socket of hostile) expect(socket.errors).toEqual([]);
    const after = Math.max(...seen.map((s) => s.heights.at(-1)!)) + 4;
    await until(() => seen.every((s) => s.heights.at(-1)! >= after), 60_000);
    for (const s of seen) {
      expect(consecutive(s.heights)).toBe(true);
      expect(s.errors).toEqual([]);
    }
    for (const socket of hostile) expect(socket.heights).toEqual([]);
    for (const client of clients) client.disconnect();
    for (const socket of hostile) socket.ws.close();
  });
});

describe("a socket sending thousands of frames a second", () => {
  it("is refused past its rate and closed, and the others on its shard get every height in order", async () => {
    const edge = `${capped.url.replace(/^http/, "ws")}/rpc/websocket`;
    const direct = await listen(`${stack.nodes[0].url.replace(/^http/, "ws")}/rpc/websocket`);
    const honest = await Promise.all(Array.from({ length: 20 }, () => listen(edge)));
    // A few heights before the flood: the edge's delay without it, for comparison.
    await until(() => honest.every((h) => h.heights.length >= 6));
    const flood = new WebSocket(edge);
    const refusals: string[] = [];
    flood.on("message", (data) => {
      const error = (JSON.parse(String(data)) as { error?: { data: string } }).error;
      if (error) refusals.push(error.data);
    });
    let floodClosed: { code: number; reason: string } | null = null;
    flood.on("close", (code, reason) => (floodClosed = { code, reason: String(reason) }));
    flood.on("error", () => undefined);
    await new Promise((resolve) => flood.once("open", resolve));
    const started = Date.now();
    const from = Math.max(...honest.map(last));
    const status = JSON.stringify({ jsonrpc: "2.0", id: 9, method: "status", params: {} });
    for (let i = 0; i < 5_000 && flood.readyState === WebSocket.OPEN; i++) flood.send(status);
    await until(() => floodClosed !== null);
    expect(floodClosed).toEqual({ code: 1008, reason: "100 frames over the rate" });
    expect(refusals.filter((r) => r.startsWith("rate limited")).length).toBeGreaterThanOrEqual(100);
    await until(() => honest.every((h) => last(h) >= from + 8), 60_000);
    for (const h of honest) {
      expect(consecutive(h.heights.map((x) => x.height))).toBe(true);
      expect(h.errors).toEqual([]);
    }
    // The edge's delay behind the node's own socket, before and since the flood (reported, not asserted).
    const directAt = new Map(direct.heights.map((x) => [x.height, x.at]));
    const delays = (flooded: boolean) =>
      honest
        .flatMap((h) => h.heights.filter((x) => x.height > from === flooded && directAt.has(x.height)))
        .map((x) => x.at - directAt.get(x.height)!)
        .sort((a, b) => a - b);
    const figure = (d: number[]) =>
      `${d.length} deliveries, p50 ${percentile(d, 0.5)} ms, p99 ${percentile(d, 0.99)} ms`;
    console.log(
      `live flood: behind the node's own socket, before it ${figure(delays(false))}; ` +
        `since 5,000 frames began (${Date.now() - started} ms) ${figure(delays(true))}`,
    );
    for (const socket of [...honest, direct]) socket.ws.close();
  });
});

describe("sockets held per client IP", () => {
  it(`one IP holding ${CAP} is refused the next (429, the one error shape), served once it closes one`, async () => {
    const edge = `${capped.url.replace(/^http/, "ws")}/rpc/websocket`;
    const open = () =>
      new Promise<WebSocket | { status: number; body: string }>((resolve, reject) => {
        const ws = new WebSocket(edge);
        ws.once("open", () => resolve(ws));
        ws.once("unexpected-response", (_, res) => {
          let body = "";
          res.on("data", (chunk) => (body += chunk));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        });
        ws.once("error", reject);
      });
    // The sockets of the flood test may still be closing.
    const held: WebSocket[] = [];
    while (held.length < CAP) {
      const got = await open();
      if (got instanceof WebSocket) held.push(got);
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const refused = await open();
    expect(refused).toMatchObject({ status: 429 });
    // The one error shape (src/errors.ts): a gRPC-style status with the reason in its details.
    const body = JSON.parse((refused as { body: string }).body) as { code: number; details: { reason: string }[] };
    expect(body).toMatchObject({ code: 8, details: [{ reason: "TOO_MANY_SOCKETS" }] });
    held.pop()!.close();
    let again = await open();
    for (const end = Date.now() + 10_000; !(again instanceof WebSocket) && Date.now() < end; again = await open())
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(again).toBeInstanceOf(WebSocket);
    for (const ws of [...held, again as WebSocket]) ws.close();
  });
});

/**
 * The live face's guarantee across a node's failure, from outside with CosmJS's WebsocketClient:
 * every height once, in order, when the node drops every socket for 5 s and when the first node
 * is gone for good (the second takes over); a client that stops reading delays nobody; and the
 * nodes hold no subscription once the last subscriber has left.
 */
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  collectHeights,
  cometClient,
  consecutive,
  LIVE_BLOCK_MS,
  type LiveStack,
  startLiveStack,
  until,
  upstreamSubscriptions,
} from "./helpers/live-stack.ts";

let stack: LiveStack;
beforeAll(async () => {
  stack = await startLiveStack();
});
afterAll(async () => {
  await stack?.stop();
});

/** The height a node is at now. */
async function nodeHeight(index: 0 | 1): Promise<number> {
  return ((await (await fetch(`${stack.nodes[index].url}/__devnet/status`)).json()) as { height: number }).height;
}

describe("every height, in order, once", () => {
  it("across 5 s of every socket dropped, then the first node gone for good", async () => {
    const clients = Array.from({ length: 20 }, () => cometClient(stack));
    const seen = clients.map(collectHeights);
    await until(() => seen.every((s) => s.heights.length >= 3));

    stack.nodes[0].websocket.drop(5000);
    const back = Date.now() + 5000;
    const target = (await nodeHeight(0)) + Math.ceil(5000 / LIVE_BLOCK_MS) + 2;
    await until(() => seen.every((s) => s.heights.at(-1)! >= target), 60_000);
    // The contract is 15 s from the node's return; the time is reported, not asserted (docs/PERFORMANCE.md).
    console.log(`live: every subscriber level with the node ${Date.now() - back} ms after its return`);

    stack.nodes[0].websocket.drop(Infinity);
    const failover = (await nodeHeight(1)) + 5;
    await until(() => seen.every((s) => s.heights.at(-1)! >= failover), 60_000);
    for (const s of seen) {
      expect(consecutive(s.heights)).toBe(true);
      expect(s.errors).toEqual([]);
    }
    expect(stack.nodes[1].websocket.counts().subscriptions).toBe(1);
    for (const client of clients) client.disconnect();
  });
});

describe("a client that stops reading", () => {
  it("delays nobody: the others go on receiving every height", async () => {
    const stalled = new WebSocket(`${stack.rpcBase}/websocket`);
    await new Promise((resolve) => stalled.once("open", resolve));
    stalled.send(
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "subscribe", params: { query: "tm.event='NewBlock'" } }),
    );
    await new Promise((resolve) => stalled.once("message", resolve));
    // The kernel's buffers fill and the edge's sends to it queue up.
    (stalled as unknown as { _socket: { pause(): void } })._socket.pause();
    const clients = Array.from({ length: 10 }, () => cometClient(stack));
    const seen = clients.map(collectHeights);
    await until(() => seen.every((s) => s.heights.length >= 10), 60_000);
    for (const s of seen) expect(consecutive(s.heights)).toBe(true);
    for (const client of clients) client.disconnect();
    stalled.terminate();
  });
});

describe("after the last subscriber leaves", () => {
  it("the nodes hold no subscription within 90 s", async () => {
    const client = cometClient(stack);
    const seen = collectHeights(client);
    await until(() => seen.heights.length >= 2);
    expect(upstreamSubscriptions(stack)).toBe(1);
    client.disconnect();
    await until(() => upstreamSubscriptions(stack) === 0, 90_000);
  });
});

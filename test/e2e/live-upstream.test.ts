/**
 * The live face's upstream, from outside (docs/GATEWAY.md, "The live face"): with steady
 * subscribers and a node that answers, the edge holds one connection and one subscription on it
 * for as long as they stay; after a failover to a node 30 blocks behind, it goes back to the first
 * node once that one is back, and the subscribers get new heights within 15 s of its return.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  collectHeights,
  cometClient,
  consecutive,
  type LiveStack,
  startLiveStack,
  until,
} from "./helpers/live-stack.ts";

/** How long the subscribers stay: the edge dialled again every 4 s before, so 20 s showed it 5 times over. */
const WINDOW_MS = Number(process.env.LIVE_WINDOW_MS ?? 20_000);

let stack: LiveStack;
beforeAll(async () => {
  stack = await startLiveStack();
});
afterAll(async () => {
  await stack?.stop();
});

describe("the upstream socket", () => {
  it(`is one connection and one subscription with 50 steady subscribers over ${WINDOW_MS / 1000} s`, async () => {
    const clients = await Promise.all(Array.from({ length: 50 }, () => cometClient(stack)));
    const seen = clients.map(collectHeights);
    await until(() => seen.every((s) => s.heights.length >= 2));
    const node = stack.nodes[0].websocket;
    const before = node.counts();
    const started = Date.now();
    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
    const after = node.counts();
    console.log(
      `live: over ${Date.now() - started} ms the node took ${after.opened - before.opened} new connections and ` +
        `${after.subscribed - before.subscribed} new subscriptions ` +
        `(${after.opened} and ${after.subscribed} in all; ${after.sockets} held)`,
    );
    const closes = stack.edge
      .output()
      .split("\n")
      .filter((line) => line.includes('"event":"live_'));
    if (closes.length > 0) console.log(closes.join("\n"));
    expect(after.opened - before.opened).toBe(0);
    expect(after.subscribed - before.subscribed).toBe(0);
    expect(after).toMatchObject({ sockets: 1, subscriptions: 1, opened: 1, subscribed: 1 });
    expect(stack.nodes[1].websocket.counts().opened).toBe(0);
    for (const s of seen) expect(consecutive(s.heights)).toBe(true);
    for (const client of clients) client.disconnect();
  });

  it("leaves a node 30 blocks behind for the first node once it is back: new heights within 15 s", async () => {
    const clients = await Promise.all(Array.from({ length: 5 }, () => cometClient(stack)));
    const seen = clients.map(collectHeights);
    await until(() => seen.every((s) => s.heights.length >= 2));
    // The second node falls 30 blocks behind; the first goes away for 4 s, so the edge fails over to the second.
    stack.nodes[1].websocket.lag(30);
    const lastBefore = Math.max(...seen.flatMap((s) => s.heights));
    stack.nodes[0].websocket.drop(4_000);
    await until(() => stack.nodes[1].websocket.counts().subscriptions === 1, 30_000);
    const back = Date.now() + 4_000;
    await until(() => Date.now() > back);
    // Every subscriber gets a height past the last one it had, within the contract's 15 s of the first node's return.
    await until(() => seen.every((s) => s.heights.at(-1)! > lastBefore), back + 15_000 - Date.now());
    console.log(
      `live: after a failover to a node 30 blocks behind, new heights ${Date.now() - back} ms after the return`,
    );
    for (const s of seen) {
      expect(consecutive(s.heights)).toBe(true);
      expect(s.errors).toEqual([]);
    }
    expect(stack.nodes[0].websocket.counts().subscriptions).toBe(1);
    for (const client of clients) client.disconnect();
    stack.nodes[1].websocket.lag(0);
  });
});

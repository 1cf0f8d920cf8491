/**
 * The live face's stack for its end-to-end tests: two devnets as the network's CometBFT nodes
 * (same chain, same heights) and `wrangler dev` with RPC_UPSTREAM_URLS naming both, first one
 * first; helpers to count the nodes' subscriptions, subscribe with the real CosmJS client and
 * speak raw JSON-RPC on a socket.
 */
import { Comet38Client, WebsocketClient } from "@cosmjs/tendermint-rpc";
import WebSocket from "ws";
import { type Devnet, startDevnet } from "../../../devnet/server.ts";
import { startWranglerDev, type WranglerDev } from "./wrangler-dev.ts";

/** Block time of the live tests' nodes. */
export const LIVE_BLOCK_MS = 400;

export interface LiveStack {
  nodes: [Devnet, Devnet];
  edge: WranglerDev;
  /** `ws://…/rpc`, the base a frontend gives CosmJS. */
  rpcBase: string;
  stop(): Promise<void>;
}

export async function startLiveStack(): Promise<LiveStack> {
  const nodes: [Devnet, Devnet] = [
    await startDevnet({ port: 0, blockMs: LIVE_BLOCK_MS }),
    await startDevnet({ port: 0, blockMs: LIVE_BLOCK_MS }),
  ];
  const edge = await startWranglerDev({
    UPSTREAM_URLS: nodes[0].url,
    RPC_UPSTREAM_URLS: nodes.map((n) => `${n.url}/rpc`).join(","),
    // Hundreds of sockets come from one loopback address here; the per-IP limit is the binding's own.
    RATE_LIMITS: "off",
  });
  return {
    nodes,
    edge,
    rpcBase: `${edge.url.replace(/^http/, "ws")}/rpc`,
    async stop() {
      await edge.stop();
      await Promise.all(nodes.map((n) => n.close()));
    },
  };
}

/** Subscriptions the nodes hold, all together. */
export const upstreamSubscriptions = (stack: LiveStack) =>
  stack.nodes.reduce((n, node) => n + node.websocket.counts().subscriptions, 0);

/** A CosmJS client over its own socket to the edge. */
export const cometClient = (stack: LiveStack) => Comet38Client.create(new WebsocketClient(stack.rpcBase));

/** Heights a NewBlock subscription received, in arrival order. */
export function collectHeights(client: Comet38Client): { heights: number[]; errors: unknown[] } {
  const seen = { heights: [] as number[], errors: [] as unknown[] };
  client.subscribeNewBlock().subscribe({
    next: (block) => seen.heights.push(block.header.height),
    error: (err) => seen.errors.push(err),
  });
  return seen;
}

/** True when `heights` rise one by one, no gap and no repeat. */
export const consecutive = (heights: readonly number[]) =>
  heights.every((h, i) => i === 0 || h === heights[i - 1]! + 1);

/** Waits until `condition` holds, polling; the deadline only stops a stuck test. */
export async function until(condition: () => boolean | Promise<boolean>, deadlineMs = 60_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error("condition not met before the deadline");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A raw socket to the edge's `/rpc/websocket` that answers calls by id. */
export async function rawSocket(stack: LiveStack) {
  const ws = new WebSocket(`${stack.rpcBase}/websocket`);
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  const frames: Record<string, unknown>[] = [];
  ws.on("message", (data) => frames.push(JSON.parse(String(data))));
  let next = 0;
  return {
    ws,
    frames,
    /** Sends `method` with `params` (or a raw text frame) and resolves with the frame that answers it. */
    async call(method: string, params: unknown = {}, raw?: string): Promise<Record<string, unknown>> {
      const id = `t${next++}`;
      ws.send(raw ?? JSON.stringify({ jsonrpc: "2.0", id, method, params }));
      const answering = (f: Record<string, unknown>) =>
        f.id === (raw ? null : id) && ("error" in f || !f.result || !(f.result as { data?: unknown }).data);
      await until(() => frames.some(answering));
      const index = frames.findIndex(answering);
      return frames.splice(index, 1)[0]!;
    },
  };
}

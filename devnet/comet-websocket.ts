/**
 * The devnet's CometBFT `/websocket` under `/rpc` (and under any mount tag, `/~tag/rpc/websocket`),
 * as a 0.38 node serves it: JSON-RPC 2.0 in text frames, `subscribe {query}`, `unsubscribe {query}`,
 * `unsubscribe_all`, and the node's read methods on the same socket. Each new block is published
 * as a `NewBlock` event (`{block, block_id, result_finalize_block}`) and each of its transactions
 * as a `Tx` event (`{TxResult: {height, index, tx, result}}`, with `tx.hash` and `tx.height` among
 * the event's keys, as the node's event bus adds them). A node's defaults are kept:
 * `max_subscription_clients = 100` and `max_subscriptions_per_client = 5`.
 *
 * Simplified: a query is matched on its `tm.event` and its `key = 'value'` conditions only (the
 * edge's own matcher, src/gateway/live/query/, serves the whole language); `NewBlockHeader` and
 * `NewBlockEvents` are not published (a 0.38 `NewBlock` carries what both hold).
 *
 * For the fault tests, `drop(ms)` closes every socket and refuses new ones for `ms` (Infinity: a
 * node gone for good), `lag(blocks)` publishes that many heights behind the chain; `counts()` tells how many clients and subscriptions the node holds.
 */
import { createHash } from "node:crypto";
import type { IncomingMessage, Server } from "node:http";
import { createRequire } from "node:module";
import type { Duplex } from "node:stream";
import type { WebSocket, WebSocketServer as Server_ } from "ws";
import { cometRpc } from "./comet-rpc.ts";
import type { Ledger } from "./ledger.ts";

/** A node's `max_subscription_clients` and `max_subscriptions_per_client` defaults. */
const MAX_SUBSCRIPTION_CLIENTS = 100;
const MAX_SUBSCRIPTIONS_PER_CLIENT = 5;

// Loaded by Node's own resolution: a bundler (vitest's global setup) may pick `ws`'s browser stub.
const { WebSocketServer } = createRequire(import.meta.url)("ws") as { WebSocketServer: typeof Server_ };

const PATH = /^(?:\/~[A-Za-z0-9_-]+)?\/rpc\/websocket$/;

type Events = Record<string, string[]>;
interface Subscription {
  id: unknown;
  query: string;
  type: string;
  equals: [string, string][];
}
interface Published {
  type: string;
  value: unknown;
  events: Events;
}

/** The control surface of a devnet's `/websocket`. */
export interface CometWebsocket {
  /** Closes every socket and refuses new ones for `ms` milliseconds. */
  drop(ms: number): void;
  /** Sockets held, clients with a subscription, subscriptions held, and sockets and subscriptions ever taken. */
  counts(): { clients: number; subscriptions: number; sockets: number; opened: number; subscribed: number };
  /** When the node sent the `NewBlock` of `height` (epoch ms), for the latency benchmarks. */
  sentAt(height: number): number | undefined;
  /** Publishes from now on `blocks` heights behind the chain (a node that fell behind), from that height on. */
  lag(blocks: number): void;
  close(): void;
}

/** Serves `/rpc/websocket` on `server` for `ledger`'s chain. */
export function serveCometWebsocket(server: Server, ledger: Ledger): CometWebsocket {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  const clients = new Map<WebSocket, Subscription[]>();
  let refusedUntil = 0;
  /** Upgrades ever taken and subscriptions ever made: a client that re-dials shows here, not in what is held. */
  const ever = { opened: 0, subscribed: 0 };
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = new URL(req.url ?? "/", "http://devnet.invalid").pathname;
    if (!PATH.test(path) || Date.now() < refusedUntil) {
      socket.end("HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\n\r\n");
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      clients.set(ws, []);
      ever.opened++;
      ws.on("message", (data) => {
        const before = clients.get(ws)?.length ?? 0;
        ws.send(JSON.stringify(answer(ledger, clients, ws, String(data))));
        ever.subscribed += Math.max(0, (clients.get(ws)?.length ?? 0) - before);
      });
      ws.on("close", () => clients.delete(ws));
      ws.on("error", () => clients.delete(ws));
    });
  });

  let published = ledger.height();
  let lagBlocks = 0;
  const sent = new Map<number, number>();
  const timer = setInterval(
    () => {
      const latest = ledger.height() - lagBlocks;
      // Nothing is built while no one subscribes; a pruning node publishes only what it still holds.
      const from = Math.max(published + 1, ledger.lowestBlock(latest));
      if ([...clients.values()].some((subs) => subs.length > 0))
        for (let height = from; height <= latest; height++) {
          sent.set(height, Date.now());
          sent.delete(height - 1000);
          publish(clients, blockEvents(ledger, height));
        }
      published = Math.max(published, latest);
    },
    Math.max(10, Math.floor(ledger.blockMs / 10)),
  );
  return {
    drop(ms) {
      refusedUntil = Date.now() + ms;
      for (const ws of clients.keys()) ws.terminate();
      clients.clear();
    },
    sentAt: (height) => sent.get(height),
    lag(blocks) {
      lagBlocks = blocks;
      published = Math.min(published, ledger.height() - blocks - 1);
    },
    counts() {
      const subs = [...clients.values()];
      return {
        sockets: subs.length,
        clients: subs.filter((s) => s.length > 0).length,
        subscriptions: subs.reduce((n, s) => n + s.length, 0),
        ...ever,
      };
    },
    close() {
      clearInterval(timer);
      for (const ws of clients.keys()) ws.terminate();
      wss.close();
    },
  };
}

function publish(clients: Map<WebSocket, Subscription[]>, events: Published[]): void {
  for (const [ws, subs] of clients)
    for (const event of events)
      for (const sub of subs) {
        if (sub.type !== event.type) continue;
        if (!sub.equals.every(([key, value]) => event.events[key]?.includes(value))) continue;
        const data = { type: `tendermint/event/${event.type}`, value: event.value };
        ws.send(
          JSON.stringify({ jsonrpc: "2.0", id: sub.id, result: { query: sub.query, data, events: event.events } }),
        );
      }
}

/** Event attributes flattened as the node's pubsub keys them: `<type>.<key>` → values. */
function flatten(into: Events, events: readonly { type: string; attributes: { key: string; value: string }[] }[]) {
  for (const event of events)
    for (const { key, value } of event.attributes) {
      if (!event.type || !key) continue;
      const name = `${event.type}.${key}`;
      into[name] = [...(into[name] ?? []), value];
    }
  return into;
}

type TxResultJson = { events: { type: string; attributes: { key: string; value: string }[] }[] };

/** The `NewBlock` of `height` and a `Tx` per transaction in it, as the node's event bus publishes them. */
function blockEvents(ledger: Ledger, height: number): Published[] {
  const read = (method: string) =>
    (
      cometRpc(ledger, "GET", `/${method}`, new URLSearchParams({ height: String(height) }), "", 0).reply as {
        result: Record<string, unknown>;
      }
    ).result;
  const block = read("block") as { block: { data: { txs: string[] } }; block_id: unknown };
  const results = read("block_results") as { txs_results: TxResultJson[] | null; app_hash: string };
  const txResults = results.txs_results ?? [];
  const newBlock: Published = {
    type: "NewBlock",
    value: {
      block: block.block,
      block_id: block.block_id,
      result_finalize_block: {
        events: [],
        tx_results: txResults,
        validator_updates: [],
        consensus_param_updates: null,
        app_hash: results.app_hash,
      },
    },
    events: { "tm.event": ["NewBlock"] },
  };
  const txs = block.block.data.txs.map((tx, index): Published => {
    const hash = createHash("sha256").update(Buffer.from(tx, "base64")).digest("hex").toUpperCase();
    const result = txResults[index]!;
    return {
      type: "Tx",
      value: { TxResult: { height: String(height), index, tx, result } },
      events: flatten({ "tm.event": ["Tx"], "tx.hash": [hash], "tx.height": [String(height)] }, result.events),
    };
  });
  return [newBlock, ...txs];
}

const QUERY = /^\s*tm\.event\s*=\s*'(\w+)'((?:\s+AND\s+[\w.-]+\s*=\s*'[^']*')*)\s*$/;

/** One call on a socket: a subscription change or a read. */
function answer(ledger: Ledger, clients: Map<WebSocket, Subscription[]>, ws: WebSocket, text: string): unknown {
  let call: Record<string, unknown>;
  try {
    call = JSON.parse(text);
  } catch {
    return { jsonrpc: "2.0", id: -1, error: { code: -32700, message: "Parse error. Invalid JSON", data: "" } };
  }
  const id = call.id ?? -1;
  const params = (call.params ?? {}) as Record<string, unknown>;
  const failed = (data: string) => ({ jsonrpc: "2.0", id, error: { code: -32603, message: "Internal error", data } });
  const subs = clients.get(ws) ?? [];
  const query = typeof params.query === "string" ? params.query : "";
  switch (call.method) {
    case "subscribe": {
      const holding = [...clients.values()].filter((s) => s.length > 0).length;
      if (subs.length === 0 && holding >= MAX_SUBSCRIPTION_CLIENTS)
        return failed(`max_subscription_clients ${MAX_SUBSCRIPTION_CLIENTS} reached`);
      if (subs.length >= MAX_SUBSCRIPTIONS_PER_CLIENT)
        return failed(`max_subscriptions_per_client ${MAX_SUBSCRIPTIONS_PER_CLIENT} reached`);
      const parsed = QUERY.exec(query);
      if (!parsed) return failed(`failed to parse query: the devnet matches tm.event and = only: ${query}`);
      if (subs.some((s) => s.query === query)) return failed("already subscribed");
      const equals = [...parsed[2]!.matchAll(/([\w.-]+)\s*=\s*'([^']*)'/g)].map(
        (m) => [m[1]!, m[2]!] as [string, string],
      );
      clients.set(ws, [...subs, { id, query, type: parsed[1]!, equals }]);
      return { jsonrpc: "2.0", id, result: {} };
    }
    case "unsubscribe": {
      const kept = subs.filter((s) => s.query !== query);
      if (kept.length === subs.length) return failed("subscription not found");
      clients.set(ws, kept);
      return { jsonrpc: "2.0", id, result: {} };
    }
    case "unsubscribe_all":
      if (subs.length === 0) return failed("subscription not found");
      clients.set(ws, []);
      return { jsonrpc: "2.0", id, result: {} };
    default: {
      const body = JSON.stringify({ jsonrpc: "2.0", id, method: call.method, params });
      return cometRpc(ledger, "POST", "", new URLSearchParams(), body, 0).reply;
    }
  }
}

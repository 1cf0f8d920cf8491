/**
 * Fake LCD nodes for `npm run bench:nodes`: real HTTP servers on loopback ports the kernel picks, each
 * answering the bank balances query with a set latency, and on command hanging, answering 429 with
 * `Retry-After`, or lagging a set number of blocks behind a chain that makes one block per second.
 * Each node logs when it was asked, so a run can tell which node served each miss and when a node
 * was left and asked again.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** How a node behaves; every field may change while the run goes on. */
interface Behaviour {
  /** Milliseconds before each answer. */
  latencyMs: number;
  /** Every n-th request hangs (never answered while the node runs); 0: none. */
  hangEvery: number;
  /** Until this epoch ms, every request hangs. */
  hangUntil: number;
  /** The next request answers 429 with `Retry-After: <seconds>` (then this is cleared). */
  tooManyOnce: number | null;
  /** Blocks behind the chain's height. */
  lag: number;
}

export interface FakeNode {
  name: string;
  url: string;
  behaviour: Behaviour;
  /** Epoch ms of every request this node received since the last `reset`. */
  asked: number[];
  reset(behaviour: Partial<Behaviour>): void;
}

/** The chain's height at `now`: one block per second from a fixed start. */
const GENESIS_MS = Date.now() - 1_000_000;
const chainHeight = (now = Date.now()) => Math.floor((now - GENESIS_MS) / 1000);

const QUIET: Behaviour = { latencyMs: 20, hangEvery: 0, hangUntil: 0, tooManyOnce: null, lag: 0 };

export interface FakeNodes {
  nodes: FakeNode[];
  close(): Promise<void>;
}

/** Starts one node per name, each quiet (20 ms, no faults) until told otherwise. */
export async function startFakeNodes(names: readonly string[]): Promise<FakeNodes> {
  const servers: Server[] = [];
  const sockets = new Set<Socket>();
  const nodes: FakeNode[] = [];
  for (const name of names) {
    const node: FakeNode = {
      name,
      url: "",
      behaviour: { ...QUIET },
      asked: [],
      reset(behaviour) {
        node.behaviour = { ...QUIET, ...behaviour };
        node.asked = [];
      },
    };
    const server = createServer((request, response) => answer(node, request, response));
    server.on("connection", (socket) => {
      sockets.add(socket);
      socket.once("close", () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    node.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    servers.push(server);
    nodes.push(node);
  }
  return {
    nodes,
    async close() {
      for (const socket of sockets) socket.destroy();
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    },
  };
}

function answer(node: FakeNode, request: IncomingMessage, response: ServerResponse): void {
  const now = Date.now();
  node.asked.push(now);
  const b = node.behaviour;
  request.resume();
  if (now < b.hangUntil || (b.hangEvery > 0 && node.asked.length % b.hangEvery === 0)) return;
  if (b.tooManyOnce !== null) {
    const seconds = b.tooManyOnce;
    b.tooManyOnce = null;
    response.writeHead(429, { "content-type": "application/json", "retry-after": String(seconds) });
    response.end('{"code":8,"message":"rate limited","details":[]}');
    return;
  }
  setTimeout(() => {
    if (response.destroyed) return;
    const height = chainHeight() - b.lag;
    response.writeHead(200, { "content-type": "application/json", "grpc-metadata-x-cosmos-block-height": `${height}` });
    response.end('{"balances":[],"pagination":{"next_key":null,"total":"0"}}');
  }, b.latencyMs);
}

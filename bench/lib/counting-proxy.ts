/**
 * A counting HTTP proxy on loopback in front of one LCD URL, playing several nodes: a request to
 * `/~<node>/<path>` is counted for that node and forwarded to `<URL>/<path>`. A node can be made
 * to refuse (answer a status without forwarding) or to lag (report heights some blocks lower),
 * so the multi-city simulation runs the same against any LCD as against the devnet.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** What a played node does instead of passing the answer through unchanged. */
interface NodeBehaviour {
  /** Answer this status (with a gRPC-style JSON body) without asking the URL. */
  refuseWith?: number;
  /** Report the block height this many blocks lower. */
  lagBlocks?: number;
}

export interface CountingProxy {
  /** Base URL of one played node, e.g. http://127.0.0.1:40000/~n1. */
  nodeUrl(node: string): string;
  /** Requests `node` received for exactly `pathAndQuery`. */
  requests(node: string, pathAndQuery: string): number;
  behave(node: string, behaviour: NodeBehaviour): void;
  close(): Promise<void>;
}

/** Height headers an LCD sends: grpc-gateway's, and the bare name some proxies use. */
const HEIGHT_HEADERS = ["grpc-metadata-x-cosmos-block-height", "x-cosmos-block-height"];
/** Headers that describe the connection or the encoding, not the answer. */
const HOP_HEADERS = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding"]);

export async function startCountingProxy(target: string): Promise<CountingProxy> {
  const base = target.replace(/\/+$/, "");
  const counts = new Map<string, number>();
  const behaviours = new Map<string, NodeBehaviour>();
  const server = createServer((req, res) => {
    forward(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "application/json" });
      res.end(JSON.stringify({ code: 14, message: `proxy: ${String(err)}`, details: [] }));
    });
  });

  async function forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const mounted = /^\/~([A-Za-z0-9_-]+)(\/.*)$/.exec(req.url ?? "");
    if (!mounted) return void res.writeHead(404).end();
    const [, node, pathAndQuery] = mounted as unknown as [string, string, string];
    const key = `${node} ${pathAndQuery}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    const behaviour = behaviours.get(node) ?? {};
    if (behaviour.refuseWith) {
      res.writeHead(behaviour.refuseWith, { "content-type": "application/json" });
      return void res.end(JSON.stringify({ code: 14, message: `node ${node} refuses (simulated)`, details: [] }));
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers))
      if (name !== "host" && typeof value === "string") headers.set(name, value);
    const upstream = await fetch(`${base}${pathAndQuery}`, {
      headers,
      redirect: "manual",
      signal: AbortSignal.timeout(30_000),
    });
    const out: Record<string, string> = {};
    upstream.headers.forEach((value, name) => {
      if (!HOP_HEADERS.has(name)) out[name] = value;
    });
    for (const name of HEIGHT_HEADERS) {
      if (behaviour.lagBlocks && out[name] && /^\d+$/.test(out[name]))
        out[name] = String(Math.max(1, Number(out[name]) - behaviour.lagBlocks));
    }
    const body = Buffer.from(await upstream.arrayBuffer());
    res.writeHead(upstream.status, out);
    res.end(req.method === "HEAD" ? undefined : body);
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    nodeUrl: (node) => `http://127.0.0.1:${port}/~${node}`,
    requests: (node, pathAndQuery) => counts.get(`${node} ${pathAndQuery}`) ?? 0,
    behave: (node, behaviour) => void behaviours.set(node, behaviour),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

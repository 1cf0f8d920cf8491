/**
 * A local stand-in for the network's REST (LCD) node: serves the 19 query paths of groups A–E
 * with deterministic data, records operator authorizations, and exposes counters and faults
 * under `/__devnet/`. A development tool only: nothing under src/ imports it.
 *
 * Control surface:
 *   POST   /__devnet/authorizations  {payout_recipient, operator, label} → 201 entry | 409 exists | 400 self
 *   GET    /__devnet/authorizations  → every recorded authorization
 *   GET    /__devnet/requests?prefix=~tag/path  → {count, by_path, last_headers} (keys are `~tag/path?query`, untagged `/path?query`)
 *   POST   /__devnet/faults  {tag?, prefix?, status?, delay_ms?, body?, content_type?, height_offset?, omit_height?, drop?, times?} → 201 {id,…}
 *   GET    /__devnet/faults  → active faults;  DELETE /__devnet/faults[/<id>] → 204
 *   POST   /__devnet/reset   → clears counters and faults (authorizations stay) → 204
 *   GET    /__devnet/status  → {height, chain_id, namespace, bech32_prefix, native_denom}
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readBrand, type Brand } from "./brand.ts";
import { badRequest, Code, DevnetError, notFound } from "./cosmos-errors.ts";
import { FaultBoard, type Fault } from "./faults.ts";
import { Ledger } from "./ledger.ts";
import { matchModuleRoute } from "./module-routes.ts";

export interface DevnetOptions {
  /** TCP port; 0 picks a free one. Default 1317. */
  port?: number;
  /** Interface to listen on. Default 127.0.0.1 (loopback only). */
  host?: string;
  /** Brand words; default from CHAIN_NAMESPACE, BECH32_PREFIX, NATIVE_DENOM, CHAIN_ID. */
  brand?: Brand;
  /** Block time in milliseconds. Default 2000. */
  blockMs?: number;
}

export interface Devnet {
  /** Base URL, e.g. http://127.0.0.1:1317 (no trailing slash). */
  url: string;
  close(): Promise<void>;
}

/** Starts a devnet; rejects (EADDRINUSE) when the port is taken. */
export async function startDevnet(options: DevnetOptions = {}): Promise<Devnet> {
  const ledger = new Ledger(options.brand ?? readBrand(), options.blockMs ?? 2000);
  const board = new FaultBoard();
  const server = createServer((req, res) => {
    handle(ledger, board, req, res).catch((err: unknown) => {
      const error = err instanceof DevnetError ? err : new DevnetError(500, 13, String(err));
      if (!res.headersSent) send(res, error.status, error.body(), ledger.height());
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 5000;
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 1317, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function send(res: ServerResponse, status: number, body: unknown, height: number | null, contentType = "application/json"): void {
  // Like a node run with CORS enabled: pages on another local port may ask it directly.
  const headers: Record<string, string> = { "content-type": contentType, "access-control-allow-origin": "*" };
  if (height !== null) headers["x-cosmos-block-height"] = String(height);
  res.writeHead(status, headers);
  res.end(typeof body === "string" ? body : JSON.stringify(body));
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers[name] = String(value);
  return headers;
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    const value = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
    if (value && typeof value === "object" && !Array.isArray(value)) return value;
  } catch {
    // fall through to the refusal
  }
  throw badRequest("body must be a JSON object");
}

async function handle(ledger: Ledger, board: FaultBoard, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://devnet.invalid");
  if (req.method === "OPTIONS") {
    res.writeHead(204, {
      "access-control-allow-origin": "*",
      "access-control-allow-methods": "GET, HEAD, POST, DELETE, OPTIONS",
      "access-control-allow-headers": req.headers["access-control-request-headers"] ?? "content-type",
    });
    return void res.end();
  }
  if (url.pathname.startsWith("/__devnet/")) return control(ledger, board, req, res, url);

  const tagged = /^\/~([A-Za-z0-9_-]+)(\/.*)$/.exec(url.pathname);
  const tag = tagged ? tagged[1]! : "";
  const pathname = tagged ? tagged[2]! : url.pathname;
  board.count(`${tag ? `~${tag}` : ""}${pathname}${url.search}`, headersOf(req));

  const fault = board.take(tag, `${pathname}${url.search}`);
  if (fault?.delay_ms) await new Promise((r) => setTimeout(r, fault.delay_ms));
  if (fault?.drop) return void res.destroy();
  const height = fault?.omit_height ? null : ledger.height() + (fault?.height_offset ?? 0);
  if (fault?.body !== undefined) return send(res, fault.status ?? 200, fault.body, height, fault.content_type ?? "text/html");
  if (fault?.status && fault.status >= 400) return send(res, fault.status, { code: 13, message: `injected fault ${fault.status}`, details: [] }, height);

  if (req.method !== "GET" && req.method !== "HEAD") throw new DevnetError(405, Code.UNIMPLEMENTED, "Method Not Allowed");
  const matched = matchModuleRoute(ledger.brand.namespace, pathname);
  if (!matched) throw new DevnetError(404, Code.NOT_FOUND, "Not Found");
  send(res, fault?.status ?? 200, matched.route.answer(ledger, matched.params, url.searchParams, height ?? ledger.height()), height);
}

async function control(ledger: Ledger, board: FaultBoard, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const route = `${req.method} ${url.pathname.replace(/\/+$/, "")}`;
  switch (route) {
    case "POST /__devnet/authorizations":
      return send(res, 201, ledger.authorize(await readJson(req)), ledger.height());
    case "GET /__devnet/authorizations":
      return send(res, 200, { authorizations: [...ledger.authorizations.values()].flat() }, null);
    case "GET /__devnet/requests":
      return send(res, 200, board.requests(url.searchParams.get("prefix") ?? ""), null);
    case "POST /__devnet/faults":
      return send(res, 201, board.add((await readJson(req)) as Omit<Fault, "id">), null);
    case "GET /__devnet/faults":
      return send(res, 200, { faults: board.list() }, null);
    case "DELETE /__devnet/faults":
      board.remove();
      return void res.writeHead(204, { "access-control-allow-origin": "*" }).end();
    case "POST /__devnet/reset":
      board.reset();
      return void res.writeHead(204, { "access-control-allow-origin": "*" }).end();
    case "GET /__devnet/status": {
      const { brand } = ledger;
      return send(res, 200, { height: ledger.height(), chain_id: brand.chainId, namespace: brand.namespace, bech32_prefix: brand.bech32Prefix, native_denom: brand.nativeDenom }, null);
    }
  }
  const one = /^DELETE \/__devnet\/faults\/(\d+)$/.exec(route);
  if (one) {
    board.remove(Number(one[1]));
    return void res.writeHead(204, { "access-control-allow-origin": "*" }).end();
  }
  throw notFound(`no devnet control route ${route}`);
}

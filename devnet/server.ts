/**
 * A local stand-in for the network's REST (LCD) node: serves the network's module queries and the
 * stock Cosmos ones with deterministic data, answers like grpc-gateway (height header, historical
 * reads, pagination, `{code, message, details}` errors), records operator authorizations, node
 * registrations and changes, and transactions, and exposes counters and faults under `/__devnet/`. A development tool only:
 * nothing under src/ imports it. Below `/rpc` it is also a CometBFT 0.38 RPC node of the same chain
 * (devnet/comet-rpc.ts), `/rpc/websocket` included (devnet/comet-websocket.ts).
 *
 * Every change of state is a transaction in the next block (blocks and their transactions are
 * served as a node serves them: devnet/blocks.ts); its effects appear at that block's height.
 *
 * Control surface (the three POSTs take `?wait=block` to answer once their block is the latest):
 *   POST   /__devnet/txs  {signer, memo?, messages: [{typeUrl, value}]} → 200 {tx_response: {txhash, code, codespace, raw_log, height}}
 *   POST   /__devnet/authorizations  {payout_recipient, operator, label} → 201 entry | 409 exists | 400 self
 *   GET    /__devnet/authorizations  → every recorded authorization
 *   POST   /__devnet/nodes  {operator, label?} → 201 the new node record (paying the operator) | 409 exists | 400 bad address
 *   GET    /__devnet/requests?prefix=~tag/path  → {count, by_path, last_headers} (keys are `~tag/path?query`, untagged `/path?query`)
 *   POST   /__devnet/faults  {tag?, prefix?, status?, delay_ms?, body?, content_type?, height_offset?, omit_height?,
 *          rename_height?, fixed_height?, headers?, rpc_error?: {code, data}, drop?, times?} → 201 {id,…}
 *   GET    /__devnet/faults  → active faults;  DELETE /__devnet/faults[/<id>] → 204
 *   POST   /__devnet/reset   → clears counters and faults (authorizations, nodes and transactions stay) → 204
 *   GET    /__devnet/status  → {height, chain_id, namespace, bech32_prefix, native_denom, height_header}
 *   GET    /__devnet/websocket  → {sockets, clients, subscriptions} of the CometBFT `/rpc/websocket`
 *   POST   /__devnet/websocket/drop  {ms} → 204: every socket closed, new ones refused for ms (-1: for good)
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { HEIGHT_HEADER, REQUEST_HEIGHT_HEADER, requestedHeight, type HeightHeaderForm } from "./block-height.ts";
import { readBrand, type Brand } from "./brand.ts";
import { broadcast, recordApplied } from "./broadcast.ts";
import { badRequest, Code, DevnetError, notFound } from "./cosmos-errors.ts";
import { FaultBoard, type Fault } from "./faults.ts";
import { cometRpc } from "./comet-rpc.ts";
import { serveCometWebsocket, type CometWebsocket } from "./comet-websocket.ts";
import { ModuleError } from "./incentives-errors.ts";
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
  /** Blocks kept back from the latest (a pruning node); older ones are CometBFT's "not available". Default: every block since the start. */
  retainBlocks?: number;
  /** Name of the answers' height header: grpc-gateway's `Grpc-Metadata-X-Cosmos-Block-Height` (default) or a renaming proxy's bare one. */
  heightHeader?: HeightHeaderForm;
}

export interface Devnet {
  /** Base URL, e.g. http://127.0.0.1:1317 (no trailing slash). */
  url: string;
  /** The CometBFT `/rpc/websocket`'s counts and faults (devnet/comet-websocket.ts). */
  websocket: CometWebsocket;
  close(): Promise<void>;
}

/** Starts a devnet; rejects (EADDRINUSE) when the port is taken. */
export async function startDevnet(options: DevnetOptions = {}): Promise<Devnet> {
  const node: LocalNode = {
    ledger: new Ledger(options.brand ?? readBrand(), options.blockMs ?? 2000, options.retainBlocks),
    board: new FaultBoard(),
    heightHeader: options.heightHeader ?? "grpc-metadata",
  };
  const server = createServer((req, res) => {
    handle(node, req, res).catch((err: unknown) => {
      const error = err instanceof DevnetError ? err : new DevnetError(500, Code.INTERNAL, String(err));
      if (!res.headersSent) send(res, error.status, error.body(), null);
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 5000;
  const websocket = (node.websocket = serveCometWebsocket(server, node.ledger));
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 1317, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    websocket,
    close: () =>
      new Promise<void>((resolve) => {
        websocket.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** One devnet's state and settings, shared by its handlers. */
interface LocalNode {
  ledger: Ledger;
  board: FaultBoard;
  heightHeader: HeightHeaderForm;
  websocket?: CometWebsocket;
}

/** The block height an answer reports, under the header name it goes out with; null sends none. */
type HeightStamp = { header: string; height: number } | null;

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  stamp: HeightStamp,
  contentType = "application/json",
  extra: Record<string, string> = {},
): void {
  // Like a node run with CORS enabled: pages on another local port may ask it directly.
  const headers: Record<string, string> = {
    ...extra,
    "content-type": contentType,
    "access-control-allow-origin": "*",
  };
  if (stamp) headers[stamp.header] = String(stamp.height);
  res.writeHead(status, headers);
  res.end(typeof body === "string" ? body : JSON.stringify(body));
}

const headersOf = (req: IncomingMessage): Record<string, string> =>
  Object.fromEntries(Object.entries(req.headers).flatMap(([name, v]) => (v === undefined ? [] : [[name, String(v)]])));

async function readText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const text = await readText(req);
  try {
    const value = JSON.parse(text || "{}");
    if (value && typeof value === "object" && !Array.isArray(value)) return value;
  } catch {
    // fall through to the refusal
  }
  throw badRequest("body must be a JSON object");
}

/**
 * With `?wait=block` a control route answers once the block holding its transaction is the
 * latest (a convenience for scripts and tests; a node's own broadcast answers at once).
 */
async function untilIncluded(ledger: Ledger, url: URL, height: number): Promise<void> {
  if (url.searchParams.get("wait") !== "block" || height <= 0) return;
  while (ledger.height() < height) await new Promise((r) => setTimeout(r, ledger.msUntil(height) + 1));
}

async function handle(node: LocalNode, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { ledger, board } = node;
  const url = new URL(req.url ?? "/", "http://devnet.invalid");
  if (req.method === "OPTIONS") {
    res.writeHead(204, {
      "access-control-allow-origin": "*",
      "access-control-allow-methods": "GET, HEAD, POST, DELETE, OPTIONS",
      "access-control-allow-headers": req.headers["access-control-request-headers"] ?? "content-type",
    });
    return void res.end();
  }
  if (url.pathname.startsWith("/__devnet/")) return control(node, req, res, url);

  const tagged = /^\/~([A-Za-z0-9_-]+)(\/.*)$/.exec(url.pathname);
  const tag = tagged ? tagged[1]! : "";
  const pathname = tagged ? tagged[2]! : url.pathname;
  board.count(`${tag ? `~${tag}` : ""}${pathname}${url.search}`, headersOf(req));

  const fault = board.take(tag, `${pathname}${url.search}`);
  if (fault?.delay_ms) await new Promise((r) => setTimeout(r, fault.delay_ms));
  if (fault?.drop) return void res.destroy();
  const header = HEIGHT_HEADER[fault?.rename_height ? "bare" : node.heightHeader];
  const offset = fault?.fixed_height !== undefined ? fault.fixed_height - ledger.height() : (fault?.height_offset ?? 0);
  const stamp = (height: number): HeightStamp => (fault?.omit_height ? null : { header, height: height + offset });
  if (fault?.body !== undefined)
    return send(res, fault.status ?? 200, fault.body, stamp(ledger.height()), fault.content_type ?? "text/html");
  if (fault?.status && fault.status >= 400)
    return send(
      res,
      fault.status,
      { code: Code.INTERNAL, message: `injected fault ${fault.status}`, details: [] },
      stamp(ledger.height()),
      "application/json",
      fault.headers,
    );

  if (pathname === "/rpc" || pathname.startsWith("/rpc/")) {
    const body = req.method === "POST" ? await readText(req) : "";
    const method = req.method ?? "GET";
    const { status, reply } = cometRpc(
      ledger,
      method,
      pathname.slice(4),
      url.searchParams,
      body,
      offset,
      fault?.rpc_error,
    );
    return send(res, status, reply, null);
  }

  // Refused before a query reaches the chain, so no height is reported.
  if (req.method !== "GET" && req.method !== "HEAD")
    throw new DevnetError(405, Code.UNIMPLEMENTED, "Method Not Allowed");
  const matched = matchModuleRoute(ledger.brand.namespace, pathname);
  if (!matched) throw new DevnetError(404, Code.NOT_FOUND, "Not Found");
  const asked = requestedHeight(req.headers[REQUEST_HEIGHT_HEADER], ledger.height());

  // From here the chain has fixed the height, so refusals report it too.
  let body: unknown;
  try {
    body = matched.route.answer(ledger, matched.params, url.searchParams, asked + offset);
  } catch (err) {
    if (err instanceof DevnetError) return send(res, err.status, err.body(), stamp(asked));
    throw err;
  }
  send(res, fault?.status ?? 200, body, stamp(asked));
}

async function control(node: LocalNode, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const { ledger, board } = node;
  const route = `${req.method} ${url.pathname.replace(/\/+$/, "")}`;
  switch (route) {
    case "POST /__devnet/txs": {
      const answer = broadcast(ledger, await readJson(req));
      await untilIncluded(ledger, url, Number(answer.tx_response.height));
      return send(res, 200, answer, null);
    }
    case "POST /__devnet/authorizations": {
      const request = ledger.parseAuthorization(await readJson(req));
      const height = ledger.nextHeight();
      let entry;
      try {
        entry = ledger.authorize(request, height);
      } catch (err) {
        throw err instanceof ModuleError ? err.toDevnetError() : err;
      }
      const value = { payoutRecipient: request.payout_recipient, operator: request.operator, label: request.label };
      recordApplied(
        ledger,
        request.payout_recipient,
        { typeUrl: `/${ledger.brand.namespace}.incentives.v1.MsgAuthorizeOperator`, value },
        height,
      );
      await untilIncluded(ledger, url, height);
      return send(res, 201, entry, { header: HEIGHT_HEADER[node.heightHeader], height });
    }
    case "POST /__devnet/nodes": {
      const record = ledger.registerNode(await readJson(req));
      const height = Number(record.registered_height);
      // Assumed: how a node registers is not public; the message carries the record's own fields.
      const value = {
        operator: record.operator,
        nodeId: record.node_id,
        externalAddress: record.external_address,
        rpcUrl: record.rpc_url,
        label: record.label,
        payoutRecipient: record.payout_recipient,
      };
      recordApplied(
        ledger,
        record.operator,
        { typeUrl: `/${ledger.brand.namespace}.incentives.v1.MsgRegisterNode`, value },
        height,
      );
      await untilIncluded(ledger, url, height);
      return send(res, 201, record, { header: HEIGHT_HEADER[node.heightHeader], height });
    }
    case "GET /__devnet/authorizations":
      return send(res, 200, { authorizations: ledger.allAuthorizations() }, null);
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
    case "GET /__devnet/websocket":
      return send(res, 200, node.websocket?.counts() ?? {}, null);
    case "POST /__devnet/websocket/drop": {
      const ms = Number((await readJson(req)).ms ?? 5000);
      node.websocket?.drop(ms < 0 ? Infinity : ms);
      return void res.writeHead(204, { "access-control-allow-origin": "*" }).end();
    }
    case "GET /__devnet/status": {
      const { brand } = ledger;
      return send(
        res,
        200,
        {
          height: ledger.height(),
          chain_id: brand.chainId,
          namespace: brand.namespace,
          bech32_prefix: brand.bech32Prefix,
          native_denom: brand.nativeDenom,
          height_header: node.heightHeader,
        },
        null,
      );
    }
  }
  const one = /^DELETE \/__devnet\/faults\/(\d+)$/.exec(route);
  if (one) {
    board.remove(Number(one[1]));
    return void res.writeHead(204, { "access-control-allow-origin": "*" }).end();
  }
  throw notFound(`no devnet control route ${route}`);
}

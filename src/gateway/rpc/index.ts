/**
 * The gateway's CometBFT face, mounted at `/rpc`: JSON-RPC 2.0 by POST (one call or a batch) and
 * CometBFT's URI style (`GET /rpc/<method>?<params>`), for CosmJS's `StargateClient`,
 * `Comet38Client` and `HttpBatchClient`. Each call is checked (methods.ts), then served by the
 * same tiers as the REST face: the isolate's memory, the Cache API, the shield, the nodes of
 * RPC_UPSTREAM_URLS. A refusal costs no upstream request, and every error is a JSON-RPC error
 * with HTTP 200 (CosmJS throws on any status of 400 or more before it reads the error), except
 * 413 for a body over the limit and 503 when no RPC node is configured.
 */
import type { Context } from "hono";
import { Hono } from "../../http/router";
import type { Config } from "../../config";
import { MAX_BODY_BYTES, isOverBodyLimit } from "../../http/body-limit";
import { methodNotAllowed } from "../../http/method-not-allowed";
import { queryKeys, type CacheEntry } from "../cache-entry";
import type { CacheStatus } from "../cache-status";
import type { GatewayEnv } from "../gateway-env";
import { hotFresh } from "../hot-cache";
import { HEIGHT_HEADER } from "../match";
import { publicCors } from "../public-cors";
import { recorded, serveFromTiers, type TierOutcome, type Tiers, tiersOf } from "../serve";
import { blocksBehind, boundsNow, markServed, withinBounds } from "../served-height";
import { servingHeaders } from "../serving-headers";
import { callShape, keptBody, rememberCall } from "./call-memo";
import { RPC_EXPOSED_HEADERS, RPC_MAX_BATCH, RPC_ROUTE } from "./limits";
import { RPC_METHODS, abciTable, type AbciTable, type Params } from "./methods";
import { RpcError, reply } from "./rpc-error";

const METHODS = ["GET", "POST", "OPTIONS"];

/** How one call was answered: its reply, and the tier and height that gave it (none for a refusal). */
interface Answered {
  text: string;
  cache: CacheStatus;
  height: number | null;
  /** The hot key of the entry that answered. */
  key?: string;
  /** Blocks a latest-state answer is below the highest height served (`X-Edge-Behind`). */
  behind?: number;
}

/** What answering calls needs of a request, with or without a Hono context around it. */
export interface RpcScope {
  /** The request's URL (its origin keys the cache). */
  url: string;
  config: Config;
  /** Epoch ms when the request arrived. */
  startedAt: number;
  tiers: Tiers;
  /** Records a miss's wait and the shield's part on the request (the Worker's access log). */
  record?: (outcome: TierOutcome) => void;
}

/** A JSON-RPC reply: its text and HTTP status; for answered calls, the tier (X-Cache) and the highest height. */
export interface RpcReply {
  text: string;
  status: number;
  cache?: CacheStatus;
  height?: number;
  /** Blocks the lowest latest-state answer is below the highest height served (`X-Edge-Behind`). */
  behind?: number;
}

type RpcContext = Context<GatewayEnv>;

const tables = new WeakMap<Config, AbciTable>();
/** The abci_query table of `config`, built once. */
function tableOf(config: Config): AbciTable {
  let table = tables.get(config);
  if (!table) tables.set(config, (table = abciTable(config)));
  return table;
}

export function rpcRoutes(config: Config): Hono<GatewayEnv> {
  tableOf(config);
  const app = new Hono<GatewayEnv>();
  app.use(
    "*",
    servingHeaders(),
    publicCors({
      allowMethods: METHODS,
      exposeHeaders: [RPC_EXPOSED_HEADERS],
      maxAgeSeconds: 86_400,
    }),
  );
  const post = async (c: RpcContext) => {
    if (isOverBodyLimit(c.req.raw))
      return respond(c, refuse(new RpcError(-32600, `the body is over ${MAX_BODY_BYTES} bytes`), 413));
    // The memory tier may have read the body already.
    const body = keptBody(c.req.raw) ?? (await c.req.text());
    return respond(c, await answerRpcBody(scopeOf(c), body));
  };
  app.post("/", post);
  app.post("", post);
  app.get("/:method", async (c) => {
    // CometBFT answers a URI-style call with the id -1.
    const call = { jsonrpc: "2.0", id: -1, method: c.req.param("method"), params: uriParams(c.req.url) };
    return respond(c, await answerRpcCalls(scopeOf(c), [call], false));
  });
  app.all("*", methodNotAllowed(METHODS.join(", ")));
  return app;
}

function scopeOf(c: RpcContext): RpcScope {
  return {
    url: c.req.url,
    config: c.get("config"),
    startedAt: c.get("startedAt"),
    tiers: tiersOf(c),
    record: (outcome) => void recorded(c, outcome),
  };
}

/**
 * Answers one JSON-RPC body (a call or a batch) as `POST /rpc` does, with no app around it: the same checks, cache
 * tiers, coalescing and failover. The live face answers its sockets' reads with it.
 */
export async function answerRpcBody(scope: RpcScope, body: string): Promise<RpcReply> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return refuse(new RpcError(-32700, "the body is not JSON"));
  }
  if (!Array.isArray(parsed)) return answerRpcCalls(scope, [parsed], false, body);
  if (parsed.length === 0 || parsed.length > RPC_MAX_BATCH)
    return refuse(new RpcError(-32600, `a batch holds 1 to ${RPC_MAX_BATCH} calls`));
  return answerRpcCalls(scope, parsed, true);
}

/** `body`: a single call's, which is remembered (call-memo.ts) once it is answered from a cache entry. */
async function answerRpcCalls(scope: RpcScope, calls: unknown[], batch: boolean, body?: string): Promise<RpcReply> {
  if (scope.config.rpcUpstreamUrls.length === 0)
    return refuse(new RpcError(-32603, "no CometBFT node is configured (RPC_UPSTREAM_URLS)"), 503);
  const table = tableOf(scope.config);
  const answers = await Promise.all(calls.map((call) => answerCall(scope, table, call)));
  const url = scope.url;
  const shape = body === undefined ? null : callShape(url.slice(0, url.indexOf("/", 8)), body);
  if (shape && answers[0]!.key) rememberCall(shape.rest, answers[0]!.key);
  // X-Cache is HIT only when every call was one; the height is the highest.
  return {
    text: batch ? `[${answers.map((a) => a.text).join(",")}]` : answers[0]!.text,
    status: 200,
    cache: answers.find((a) => a.cache !== "HIT")?.cache ?? "HIT",
    height: Math.max(...answers.map((a) => a.height ?? 0)),
    behind: Math.max(...answers.map((a) => a.behind ?? 0)),
  };
}

/** One call: refused before any upstream is asked, or served from the first tier that has it. */
async function answerCall(scope: RpcScope, table: AbciTable, call: unknown): Promise<Answered> {
  const request = call !== null && typeof call === "object" ? (call as Record<string, unknown>) : {};
  const id = request.id;
  const idJson =
    typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? JSON.stringify(id) : "null";
  const refused = (error: RpcError): Answered => ({
    text: reply(idJson, error.member()),
    cache: "BYPASS",
    height: null,
  });
  if (request.jsonrpc !== "2.0" || idJson === "null" || typeof request.method !== "string")
    return refused(new RpcError(-32600, 'a call is {"jsonrpc":"2.0","id":<string or number>,"method":…}'));
  const method = Object.hasOwn(RPC_METHODS, request.method) ? RPC_METHODS[request.method] : undefined;
  if (!method)
    return refused(
      new RpcError(
        -32601,
        `${JSON.stringify(request.method).slice(0, 64)} is not served here: ` +
          `reads only (${Object.keys(RPC_METHODS).join(", ")})`,
      ),
    );
  const params = request.params ?? {};
  if (typeof params !== "object" || Array.isArray(params))
    return refused(new RpcError(-32602, "params must be an object of named params"));
  let prepared;
  try {
    prepared = method(params as Params, table);
  } catch (err) {
    if (err instanceof RpcError) return refused(err);
    throw err;
  }
  const query = { upstreamPath: prepared.upstreamPath, height: null, rpc: { pinned: prepared.pinned } };
  const keys = queryKeys(scope.url, RPC_ROUTE, scope.config, query);
  const bounds = prepared.pinned ? {} : boundsNow();
  const hot = hotFresh(keys.hot, scope.startedAt);
  if (hot && withinBounds(hot.height, bounds)) return { ...fromEntry(idJson, "HIT", hot), key: keys.hot };
  const ask = { query: { ...query, ...bounds }, ttls: prepared.ttls };
  const outcome = await serveFromTiers(scope.tiers, keys, ask);
  scope.record?.(outcome);
  const served = outcome.served;
  if ("entry" in served) return { ...fromEntry(idJson, served.status, served.entry), key: keys.hot };
  const why = served.failure instanceof Error ? served.failure.message : String(served.failure);
  return { text: reply(idJson, new RpcError(-32603, why).member()), cache: "MISS", height: null };
}

/** A pinned answer's entry has no height (rpc/answer.ts), so only a latest-state answer raises the mark. */
function fromEntry(idJson: string, cache: CacheStatus, entry: CacheEntry): Answered {
  markServed(entry.height);
  return { text: reply(idJson, entry.body), cache, height: entry.height, behind: blocksBehind(entry.height) };
}

/** The Response of a reply, with X-Cache and the height header set from it. */
function respond(c: RpcContext, answer: RpcReply): Response {
  if (answer.cache) c.set("cache", answer.cache);
  if (answer.behind && answer.behind > 0) c.set("behind", answer.behind);
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (answer.height && answer.height > 0) headers[HEIGHT_HEADER] = String(answer.height);
  return new Response(answer.text, { status: answer.status, headers });
}

function refuse(error: RpcError, status = 200): RpcReply {
  return { text: reply("null", error.member()), status };
}

/** CometBFT's URI params: `"text"` is a string, anything else is taken as written (numbers, booleans, `0x` bytes). */
function uriParams(url: string): Params {
  const params: Params = {};
  const start = url.indexOf("?");
  if (start === -1) return params;
  for (const [name, value] of new URLSearchParams(url.slice(start))) params[name] = unquoted(value);
  return params;
}

/** A JSON string's text (CometBFT reads a quoted URI param as JSON), else the value as written; the checks judge it. */
function unquoted(value: string): unknown {
  if (!/^".*"$/.test(value)) return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

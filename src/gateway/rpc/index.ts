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
import { recorded, serveFromTiers, tiersOf } from "../serve";
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

type RpcContext = Context<GatewayEnv>;

export function rpcRoutes(config: Config): Hono<GatewayEnv> {
  const table = abciTable(config);
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
  const post = (c: RpcContext) => answerBody(c, table);
  app.post("/", post);
  app.post("", post);
  app.get("/:method", (c) => {
    // CometBFT answers a URI-style call with the id -1.
    const call = { jsonrpc: "2.0", id: -1, method: c.req.param("method"), params: uriParams(c.req.url) };
    return answerCalls(c, table, [call], false);
  });
  app.all("*", methodNotAllowed(METHODS.join(", ")));
  return app;
}

/** A POST: the body within the Worker's one limit (measured at the entry), parsed, one call or a batch. */
async function answerBody(c: RpcContext, table: AbciTable): Promise<Response> {
  if (isOverBodyLimit(c.req.raw)) return refuse(new RpcError(-32600, `the body is over ${MAX_BODY_BYTES} bytes`), 413);
  // The memory tier may have read the body already.
  const body = keptBody(c.req.raw) ?? (await c.req.text());
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return refuse(new RpcError(-32700, "the body is not JSON"));
  }
  if (!Array.isArray(parsed)) return answerCalls(c, table, [parsed], false, body);
  if (parsed.length === 0 || parsed.length > RPC_MAX_BATCH)
    return refuse(new RpcError(-32600, `a batch holds 1 to ${RPC_MAX_BATCH} calls`));
  return answerCalls(c, table, parsed, true);
}

/** `body`: a single call's, which is remembered (call-memo.ts) once it is answered from a cache entry. */
async function answerCalls(
  c: RpcContext,
  table: AbciTable,
  calls: unknown[],
  batch: boolean,
  body?: string,
): Promise<Response> {
  const config = c.get("config");
  if (config.rpcUpstreamUrls.length === 0)
    return refuse(new RpcError(-32603, "no CometBFT node is configured (RPC_UPSTREAM_URLS)"), 503);
  const answers = await Promise.all(calls.map((call) => answerCall(c, table, call)));
  const url = c.req.url;
  const shape = body === undefined ? null : callShape(url.slice(0, url.indexOf("/", 8)), body);
  if (shape && answers[0]!.key) rememberCall(shape.rest, answers[0]!.key);
  return send(c, answers, batch);
}

/** One call: refused before any upstream is asked, or served from the first tier that has it. */
async function answerCall(c: RpcContext, table: AbciTable, call: unknown): Promise<Answered> {
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
  const keys = queryKeys(c.req.url, RPC_ROUTE, c.get("config"), query);
  const bounds = prepared.pinned ? {} : boundsNow();
  const hot = hotFresh(keys.hot, c.get("startedAt"));
  if (hot && withinBounds(hot.height, bounds)) return { ...fromEntry(idJson, "HIT", hot), key: keys.hot };
  const ask = { query: { ...query, ...bounds }, ttls: prepared.ttls };
  const served = recorded(c, await serveFromTiers(tiersOf(c), keys, ask));
  if ("entry" in served) return { ...fromEntry(idJson, served.status, served.entry), key: keys.hot };
  const why = served.failure instanceof Error ? served.failure.message : String(served.failure);
  return { text: reply(idJson, new RpcError(-32603, why).member()), cache: "MISS", height: null };
}

/** A pinned answer's entry has no height (rpc/answer.ts), so only a latest-state answer raises the mark. */
function fromEntry(idJson: string, cache: CacheStatus, entry: CacheEntry): Answered {
  markServed(entry.height);
  return { text: reply(idJson, entry.body), cache, height: entry.height, behind: blocksBehind(entry.height) };
}

/** The reply (a batch in the caller's order); X-Cache is HIT only when every call was one, the height the highest. */
function send(c: RpcContext, answers: Answered[], batch: boolean): Response {
  c.set("cache", answers.find((a) => a.cache !== "HIT")?.cache ?? "HIT");
  const behind = Math.max(...answers.map((a) => a.behind ?? 0));
  if (behind > 0) c.set("behind", behind);
  const heights = answers.map((a) => a.height ?? 0);
  const height = Math.max(...heights);
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (height > 0) headers[HEIGHT_HEADER] = String(height);
  const text = batch ? `[${answers.map((a) => a.text).join(",")}]` : answers[0]!.text;
  return new Response(text, { status: 200, headers });
}

function refuse(error: RpcError, status = 200): Response {
  return new Response(reply("null", error.member()), { status, headers: { "content-type": "application/json" } });
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

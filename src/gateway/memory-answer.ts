/**
 * The isolate-memory tier, before the router: a request whose key is that of a fresh hot entry
 * is answered at once, without the router, the middleware or validation. Entries are kept only
 * under the key of a request that passed validation, so a request that finds one would pass it
 * unchanged; any other request goes on to the app. The keys:
 *
 * - a REST read (GET/HEAD): its URL as sent (and its `x-cosmos-block-height`), stored only in
 *   the canonical form of a validated request (`queryKeys`);
 * - an RPC call by POST: the key its body was found to have, by the body without its id
 *   (rpc/call-memo.ts); a URI-style call: its URL, as for REST.
 *
 * The answer carries what the pipeline would write (CORS, X-Cache, Server-Timing, the request
 * id), prints the same access-log line and writes the same metrics data point.
 */
import type { Config } from "../config";
import { log } from "../log";
import { writeRequestPoint } from "../middleware/metrics";
import { pathOf, requestIdOf } from "../middleware/request-context";
import type { CacheEntry } from "./cache-entry";
import { hotHit } from "./hot-cache";
import { HEIGHT_HEADER } from "./match";
import { entryResponse } from "./respond";
import { callShape, keepBody, rememberedKey } from "./rpc/call-memo";
import { RPC_EXPOSED_HEADERS, RPC_ROUTE } from "./rpc/limits";
import { reply } from "./rpc/rpc-error";
import { blocksBehind, boundsNow, markServed, withinBounds } from "./served-height";
import { serverTiming } from "./serving-headers";

/** The answer from memory, a promise of one (a POST's body is read first), or null: the app answers. */
export function answerFromMemory(
  request: Request,
  config: Config,
  metrics?: AnalyticsEngineDataset,
): Response | Promise<Response | null> | null {
  const method = request.method;
  const startedAt = Date.now();
  // Read once: each read of a Request's url is a string made anew by the runtime.
  const url = request.url;
  if (method === "POST") {
    const path = pathOf(url);
    return path === RPC_ROUTE || path === `${RPC_ROUTE}/` ? rpcCall(request, startedAt, url, path, metrics) : null;
  }
  if (method !== "GET" && method !== "HEAD") return null;
  const height = request.headers.get(HEIGHT_HEADER);
  const hot = hotHit(height === null ? url : `${url}#${height}`, startedAt);
  if (!hot) return null;
  // A latest-state entry below the height this isolate served goes to the tiers, which ask a node at or above it.
  if (height === null && !servable(hot.entry)) return null;
  // A URI-style RPC call: the JSON-RPC answer CometBFT gives it, with the id -1.
  if (hot.route.startsWith(RPC_ROUTE))
    return method === "GET" ? rpcAnswer(request, startedAt, "-1", hot.entry, hot.route, pathOf(url), metrics) : null;
  const response = entryResponse(request, hot.entry, config, startedAt);
  const behind = height === null ? blocksBehind(hot.entry.height) : 0;
  return finish(request, response, startedAt, hot.route, pathOf(url), metrics, behind);
}

/** `request`: measured at the entry against the Worker's body limit (src/http/body-limit.ts), and within it. */
async function rpcCall(
  request: Request,
  startedAt: number,
  url: string,
  path: string,
  metrics: AnalyticsEngineDataset | undefined,
): Promise<Response | null> {
  const body = await request.text();
  const shape = callShape(url.slice(0, url.indexOf("/", 8)), body);
  const key = shape && rememberedKey(shape.rest);
  const hot = key ? hotHit(key, startedAt) : null;
  if (hot && servable(hot.entry)) return rpcAnswer(request, startedAt, shape!.id, hot.entry, RPC_ROUTE, path, metrics);
  // Kept only for the router: an answer from memory needs it no more.
  keepBody(request, body);
  return null;
}

/** Whether a latest-state entry may be served: at or above the mark, which it then raises (served-height.ts). */
function servable(entry: CacheEntry): boolean {
  if (!withinBounds(entry.height, boundsNow())) return false;
  markServed(entry.height);
  return true;
}

/**
 * The headers of an RPC answer from `entry`, built once per entry object (they do not change with its age, which an
 * RPC answer does not show): the runtime copies a Headers object in one step, where a record is read name by name.
 */
const rpcHeaders = new WeakMap<CacheEntry, Headers>();

function rpcHeadersOf(entry: CacheEntry): Headers {
  let headers = rpcHeaders.get(entry);
  if (headers) return headers;
  headers = new Headers({
    "content-type": "application/json",
    "access-control-allow-origin": "*",
    "access-control-expose-headers": RPC_EXPOSED_HEADERS,
    "timing-allow-origin": "*",
    "x-cache": "HIT",
  });
  if (entry.height !== null) headers.set(HEIGHT_HEADER, String(entry.height));
  rpcHeaders.set(entry, headers);
  return headers;
}

function rpcAnswer(
  request: Request,
  startedAt: number,
  id: string,
  entry: CacheEntry,
  route: string,
  path: string,
  metrics: AnalyticsEngineDataset | undefined,
): Response {
  const response = new Response(reply(id, entry.body), { headers: rpcHeadersOf(entry) });
  return finish(request, response, startedAt, route, path, metrics, blocksBehind(entry.height));
}

/** The two headers of this request alone, and its access-log line (as src/middleware/request-context.ts prints it). */
function finish(
  request: Request,
  response: Response,
  startedAt: number,
  route: string,
  path: string,
  metrics: AnalyticsEngineDataset | undefined,
  behind = 0,
): Response {
  const requestId = requestIdOf(request);
  response.headers.set("server-timing", serverTiming("HIT", startedAt));
  response.headers.set("x-request-id", requestId);
  // A latest-state entry served below the highest height (the floor moved down, served-height.ts) says so.
  if (behind > 0) response.headers.set("x-edge-behind", String(behind));
  const line = {
    request_id: requestId,
    method: request.method,
    route,
    path,
    status: response.status,
    cache: "HIT" as const,
    shield: null,
    miss_ms: null,
    duration_ms: Date.now() - startedAt,
    colo: (request.cf as { colo?: string } | undefined)?.colo ?? null,
  };
  log("info", "request", line);
  writeRequestPoint(metrics, line, null);
  return response;
}

/** The client's view of a cache entry: status, body and the gateway's headers, or a 304. */
import type { Context } from "hono";
import type { CacheEntry } from "./cache-entry";
import type { CacheStatus } from "./cache-status";
import { ageSeconds, type StaleWindows } from "./freshness";
import type { GatewayEnv } from "./gateway-env";
import { HEIGHT_HEADER } from "./match";

/** Headers a browser may read from a gateway answer (CORS). */
export const EXPOSED_HEADERS = [
  "age",
  "etag",
  "x-cache",
  HEIGHT_HEADER,
  "server-timing",
  "x-request-id",
  "x-edge-upstream",
  "x-edge-attempts",
  "x-edge-behind",
];

/** How a cache tier served a request: an entry, or (a miss that no upstream answered) the failure to answer. */
export type Served = { status: CacheStatus; entry: CacheEntry } | { status: "MISS"; failure: unknown };

/**
 * Every cache tier answers through here, which records how it served the request (`c.var.cache`,
 * shown by X-Cache, Server-Timing and the access log). Gives the entry's response, or throws
 * the failure of a miss.
 */
export function respond(c: Context<GatewayEnv>, served: Served): Response {
  c.set("cache", served.status);
  if ("failure" in served) throw served.failure;
  return entryResponse(c.req.raw, served.entry, c.get("config"), Date.now());
}

/** Cache-Control of `entry` at `age` seconds: fresh for what is left of its TTL, then SWR and stale-if-error. */
function cacheControlOf(entry: CacheEntry, age: number, windows: StaleWindows): string {
  return (
    `public, max-age=${Math.max(0, entry.ttl - age)}, stale-while-revalidate=${windows.cacheSwrSeconds}, ` +
    `stale-if-error=${windows.cacheStaleIfErrorSeconds}`
  );
}

function matchesEtag(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(",").some((tag) => {
    const t = tag.trim();
    return t === "*" || t.replace(/^W\//, "") === etag;
  });
}

/**
 * The headers of `entry`'s responses at `age`, built once per entry object and second of age (a
 * hot entry answers many requests a second; the runtime copies a Headers object in one step,
 * where each header set on a response is a call of its own). They include what an answer from
 * the isolate's memory carries whatever the request (CORS, Timing-Allow-Origin, `X-Cache: HIT`),
 * so that answer sets only its own two; the middleware writes them again on any other answer.
 */
const entryHeaders = new WeakMap<CacheEntry, { age: number; windows: StaleWindows; headers: Headers }>();

function headersOf(entry: CacheEntry, age: number, windows: StaleWindows): Headers {
  const built = entryHeaders.get(entry);
  if (built?.age === age && built.windows === windows) return built.headers;
  const headers = new Headers({
    "content-type": "application/json",
    etag: entry.etag,
    age: String(age),
    "cache-control": cacheControlOf(entry, age, windows),
    "access-control-allow-origin": "*",
    "access-control-expose-headers": EXPOSED_HEADERS.join(","),
    "timing-allow-origin": "*",
    "x-cache": "HIT",
  });
  if (entry.height !== null) headers.set(HEIGHT_HEADER, String(entry.height));
  entryHeaders.set(entry, { age, windows, headers });
  return headers;
}

/**
 * The response for `entry` as seen at `now`, honouring If-None-Match (a HEAD gets no body).
 * Server-Timing and the request id are the middleware's to add (memory-answer.ts's, from memory).
 */
export function entryResponse(request: Request, entry: CacheEntry, windows: StaleWindows, now: number): Response {
  const headers = headersOf(entry, ageSeconds(entry, now), windows);
  if (entry.status < 300 && matchesEtag(request.headers.get("if-none-match"), entry.etag)) {
    const notModified = new Response(null, { status: 304, headers });
    notModified.headers.delete("content-type");
    return notModified;
  }
  return new Response(request.method === "HEAD" ? null : entry.body, { status: entry.status, headers });
}

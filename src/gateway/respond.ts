/** The client's view of a cached answer: status, body and the gateway's headers, or a 304. */
import type { Config } from "../config";
import { ageSeconds, type CachedAnswer } from "./cache-entry";

/**
 * How an answer was served: HIT (fresh), MISS (fetched for this request, possibly shared with
 * concurrent ones), STALE (past TTL, served while one background refresh runs), STALE-IF-ERROR
 * (every upstream failed), REVALIDATED (an upstream answered at a lower block height, so the
 * higher-height entry was kept), BYPASS (refused or answered before the cache: 4xx of the
 * gateway's own, 405, preflight). On a data-center miss through the shield tier, the status is
 * what the client got: MISS for a fresh answer (the shield's or the upstream's), else the
 * shield's STALE, STALE-IF-ERROR or REVALIDATED.
 */
export const CACHE_STATUSES = ["HIT", "MISS", "STALE", "STALE-IF-ERROR", "REVALIDATED", "BYPASS"] as const;
export type CacheStatus = (typeof CACHE_STATUSES)[number];

/** Follows the status in X-Cache (`MISS, SHIELD-FAIL-OPEN`) when the shield tier failed and the Worker asked the upstreams itself. */
export const SHIELD_FAIL_OPEN = "SHIELD-FAIL-OPEN";

/** Every X-Cache value, as a pattern (OpenAPI). */
export const X_CACHE_PATTERN = `^(${CACHE_STATUSES.join("|")})(, ${SHIELD_FAIL_OPEN})?$`;

/** How the shield tier took part in a data-center miss: what the shield did, or why the Worker went around it. */
export type ShieldTrace = { status: string; ms: number } | { fault: string; ms: number };

/** CORS for public chain data: any origin may read, with the gateway's headers exposed. */
export const CORS_HEADERS: Readonly<Record<string, string>> = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "age, etag, x-cache, x-cosmos-block-height, server-timing, x-request-id",
  "timing-allow-origin": "*",
};

/** Methods the gateway answers. */
export const ALLOWED_METHODS = "GET, HEAD, OPTIONS";

/** The answer to a CORS preflight: any origin, our methods, the headers it asks for. */
export function preflight(request: Request): Response {
  return new Response(null, {
    status: 204,
    headers: {
      ...CORS_HEADERS,
      "access-control-allow-methods": ALLOWED_METHODS,
      "access-control-allow-headers": request.headers.get("access-control-request-headers") ?? "if-none-match",
      "access-control-max-age": "86400",
    },
  });
}

function matchesEtag(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(",").some((tag) => {
    const t = tag.trim();
    return t === "*" || t.replace(/^W\//, "") === etag;
  });
}

/** Builds the response for `entry` as seen now, honouring If-None-Match. */
export function answerResponse(
  request: Request,
  entry: CachedAnswer,
  status: CacheStatus,
  config: Config,
  timing: { startedAt: number; upstreamMs?: number; shield?: ShieldTrace },
): Response {
  const now = Date.now();
  const age = ageSeconds(entry, now);
  const shield = timing.shield;
  const headers = new Headers({
    ...CORS_HEADERS,
    "content-type": "application/json",
    "cache-control": `public, max-age=${Math.max(0, entry.ttl - age)}, stale-while-revalidate=${config.cacheSwrSeconds}, stale-if-error=${config.cacheStaleIfErrorSeconds}`,
    age: String(age),
    etag: entry.etag,
    "x-cache": shield && "fault" in shield ? `${status}, ${SHIELD_FAIL_OPEN}` : status,
    "server-timing": [
      `cache;desc="${status}"`,
      ...(shield ? [`shield;desc="${"fault" in shield ? "fail-open" : shield.status}";dur=${shield.ms}`] : []),
      ...(timing.upstreamMs === undefined ? [] : [`upstream;dur=${timing.upstreamMs}`]),
      `gateway;dur=${now - timing.startedAt}`,
    ].join(", "),
  });
  if (entry.height !== null) headers.set("x-cosmos-block-height", String(entry.height));
  if (entry.status < 300 && matchesEtag(request.headers.get("if-none-match"), entry.etag)) {
    headers.delete("content-type");
    return new Response(null, { status: 304, headers });
  }
  return new Response(entry.body, { status: entry.status, headers });
}

/** The client's view of a cached answer: status, body and the gateway's headers, or a 304. */
import type { Config } from "../config";
import { ageSeconds, type CachedAnswer } from "./cache-entry";

/** Cache-Control of `entry` at `age` seconds: fresh for what is left of its TTL, then SWR and stale-if-error. */
export function cacheControlOf(entry: CachedAnswer, age: number, config: Config): string {
  return `public, max-age=${Math.max(0, entry.ttl - age)}, stale-while-revalidate=${config.cacheSwrSeconds}, stale-if-error=${config.cacheStaleIfErrorSeconds}`;
}

function matchesEtag(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(",").some((tag) => {
    const t = tag.trim();
    return t === "*" || t.replace(/^W\//, "") === etag;
  });
}

/**
 * Builds the response for `entry` as seen at `now`, honouring If-None-Match. CORS, X-Cache,
 * Server-Timing and the request id are the middleware's to add.
 */
export function answerResponse(request: Request, entry: CachedAnswer, config: Config, now: number): Response {
  const age = ageSeconds(entry, now);
  const headers = new Headers({
    "content-type": "application/json",
    "cache-control": cacheControlOf(entry, age, config),
    age: String(age),
    etag: entry.etag,
  });
  if (entry.height !== null) headers.set("x-cosmos-block-height", String(entry.height));
  if (entry.status < 300 && matchesEtag(request.headers.get("if-none-match"), entry.etag)) {
    headers.delete("content-type");
    return new Response(null, { status: 304, headers });
  }
  return new Response(entry.body, { status: entry.status, headers });
}

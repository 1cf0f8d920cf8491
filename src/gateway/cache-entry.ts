/**
 * One cached gateway answer and how it is kept in the Workers Cache API: the upstream's status,
 * JSON body and block height, when it was stored and for how long it is fresh.
 */
import type { Config } from "../config";
import { MOUNT, type MatchedQuery } from "./match";
import type { UpstreamAnswer } from "./upstreams";

/** A gateway answer, as plain data so that concurrent requests can share it. */
export interface CachedAnswer {
  status: number;
  body: string;
  /** The upstream's `x-cosmos-block-height`, when it sent one. */
  height: number | null;
  /** Epoch ms when the answer was stored. */
  storedAt: number;
  /** Seconds the answer is fresh. */
  ttl: number;
  /** Strong validator of status and body. */
  etag: string;
}

const STATUS = "x-gateway-status";
const STORED_AT = "x-gateway-stored-at";
const TTL = "x-gateway-ttl";
const HEIGHT = "x-cosmos-block-height";

/** Where one query's answer is kept. */
export interface QueryKeys {
  /**
   * The hot cache's key: for a read of the latest state, the canonical request URL itself, so a
   * request sent in canonical form finds its entry without being parsed; a historical read adds
   * `#<height>`, which no request URL carries.
   */
  hot: string;
  /**
   * The Cache API key (also the coalescing key): on the request's own origin (the cache is per
   * zone), carrying the chain id so a new network never sees an old one's answers, and the
   * height of a historical read.
   */
  cache: string;
}

export function queryKeys(requestUrl: string, config: Config, query: MatchedQuery): QueryKeys {
  const origin = requestUrl.slice(0, requestUrl.indexOf("/", requestUrl.indexOf("//") + 2));
  const at = query.height === null ? "" : `@${query.height}`;
  return {
    hot: `${origin}${MOUNT}${query.upstreamPath}${query.height === null ? "" : `#${query.height}`}`,
    cache: `${origin}/__gateway-cache/${encodeURIComponent(config.chainId)}${at}${query.upstreamPath}`,
  };
}

/** Seconds since the answer was stored. */
export function ageSeconds(entry: CachedAnswer, now: number): number {
  return Math.max(0, Math.floor((now - entry.storedAt) / 1000));
}

export async function etagOf(status: number, body: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${status}\n${body}`));
  const hex = [...new Uint8Array(digest).subarray(0, 12)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `"${hex}"`;
}

/** Seconds an answer of one query is fresh: a 2xx, and a 4xx. */
export interface AnswerTtls {
  answer: number;
  error: number;
}

/** The entry for an upstream's answer stored at `now`. */
export async function entryOf(answer: UpstreamAnswer, ttls: AnswerTtls, now: number): Promise<CachedAnswer> {
  const ttl = answer.status < 300 ? ttls.answer : ttls.error;
  return { status: answer.status, body: answer.body, height: answer.height, storedAt: now, ttl, etag: await etagOf(answer.status, answer.body) };
}

/** Reads the entry for `key` (a `QueryKeys.cache`), or null. */
export async function readEntry(key: string): Promise<CachedAnswer | null> {
  const stored = await caches.default.match(key);
  if (!stored) return null;
  const height = stored.headers.get(HEIGHT);
  return {
    status: Number(stored.headers.get(STATUS)),
    body: await stored.text(),
    height: height === null ? null : Number(height),
    storedAt: Number(stored.headers.get(STORED_AT)),
    ttl: Number(stored.headers.get(TTL)),
    etag: stored.headers.get("etag") ?? "",
  };
}

/**
 * Stores `entry` for its TTL plus the longer of the SWR and stale-if-error windows, after which
 * the Cache API drops it. Stored as a 200 whatever the upstream status, which rides in a header.
 */
export async function writeEntry(key: string, entry: CachedAnswer, config: Config): Promise<void> {
  const keep = entry.ttl + Math.max(config.cacheSwrSeconds, config.cacheStaleIfErrorSeconds);
  const headers = new Headers({
    "content-type": "application/json",
    "cache-control": `public, max-age=${keep}`,
    etag: entry.etag,
    [STATUS]: String(entry.status),
    [STORED_AT]: String(entry.storedAt),
    [TTL]: String(entry.ttl),
  });
  if (entry.height !== null) headers.set(HEIGHT, String(entry.height));
  await caches.default.put(key, new Response(entry.body, { status: 200, headers }));
}

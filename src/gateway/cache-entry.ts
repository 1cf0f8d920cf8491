/**
 * One cache entry of the gateway and how it is kept in the Workers Cache API: an upstream
 * answer's status, JSON body and block height, when it was stored and for how long it is fresh.
 */
import type { Config } from "../config";
import { toHex } from "../protocol/hex";
import { keepSeconds, type StaleWindows } from "./freshness";
import type { UpstreamAnswer, UpstreamQuery } from "./upstreams";

/** An upstream answer as kept by a cache tier, as plain data so that concurrent requests can share it. */
export interface CacheEntry {
  status: number;
  body: string;
  /** The upstream's `x-cosmos-block-height`, when it sent one. */
  height: number | null;
  /** Epoch ms when the answer was stored. */
  storedAt: number;
  /** Seconds the entry is fresh. */
  ttl: number;
  /** Strong validator of status and body. */
  etag: string;
  /** The node that gave it and the attempts its round made, while the entry is the miss's own (not cached). */
  upstream?: string;
  attempts?: number;
}

const STATUS = "x-gateway-status";
const STORED_AT = "x-gateway-stored-at";
const TTL = "x-gateway-ttl";
const HEIGHT = "x-cosmos-block-height";

/** Where one query's entry is kept. */
export interface QueryKeys {
  /**
   * The hot cache's key: for a read of the latest state, the request URL in canonical form, so a
   * request sent in that form finds its entry before it is parsed; a historical read adds
   * `#<height>`, as the lookup does with the request's height header.
   */
  hot: string;
  /**
   * The Cache API key (also the coalescing key): on the request's own origin (the cache is per
   * zone), carrying the chain id so a new network never sees an old one's entries, the height of
   * a historical read, and the upstream path.
   */
  cache: string;
}

/** The keys of `query`, asked at `requestUrl` of the gateway mounted at `mount`. */
export function queryKeys(
  requestUrl: string,
  mount: string,
  config: Pick<Config, "chainId">,
  query: UpstreamQuery,
): QueryKeys {
  const origin = requestUrl.slice(0, requestUrl.indexOf("/", requestUrl.indexOf("//") + 2));
  const at = query.height === null ? "" : `@${query.height}`;
  // The RPC face's keys live apart from the REST face's: `/status` must never meet a REST path.
  const face = query.rpc ? "/rpc" : "";
  return {
    hot: `${origin}${mount}${query.upstreamPath}${query.height === null ? "" : `#${query.height}`}`,
    cache: `${origin}/__gateway-cache/${encodeURIComponent(config.chainId)}${at}${face}${query.upstreamPath}`,
  };
}

/** @internal Exported for its tests only. */
export async function etagOf(status: number, body: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${status}\n${body}`));
  return `"${toHex(digest.slice(0, 12))}"`;
}

/** Seconds an answer to one query is fresh: a 2xx, and a 4xx. */
export interface AnswerTtls {
  success: number;
  error: number;
}

/** The entry for an upstream answer stored at `now`. */
export async function entryOf(answer: UpstreamAnswer, ttls: AnswerTtls, now: number): Promise<CacheEntry> {
  const ttl = answer.status < 300 ? ttls.success : ttls.error;
  return {
    status: answer.status,
    body: answer.body,
    height: answer.height,
    storedAt: now,
    ttl,
    etag: await etagOf(answer.status, answer.body),
    ...(answer.upstream === undefined ? {} : { upstream: answer.upstream, attempts: answer.attempts }),
  };
}

/** Reads the entry for `key` (a `QueryKeys.cache`), or null. */
export async function readEntry(key: string): Promise<CacheEntry | null> {
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
 * Stores `entry` for as long as a window can serve it (`keepSeconds`), after which the Cache API
 * drops it. Stored as a 200 whatever the upstream status, which rides in a header.
 */
export async function writeEntry(key: string, entry: CacheEntry, windows: StaleWindows): Promise<void> {
  const headers = new Headers({
    "content-type": "application/json",
    "cache-control": `public, max-age=${keepSeconds(entry.ttl, windows)}`,
    etag: entry.etag,
    [STATUS]: String(entry.status),
    [STORED_AT]: String(entry.storedAt),
    [TTL]: String(entry.ttl),
  });
  if (entry.height !== null) headers.set(HEIGHT, String(entry.height));
  await caches.default.put(key, new Response(entry.body, { status: 200, headers }));
}

/**
 * When a cache entry may be served: the one rule of every tier that keeps entries (the isolate's
 * memory, the data center's Cache API, the key's shield). Fresh until its TTL; then, for
 * CACHE_SWR_SECONDS, served while one refresh replaces it; and for CACHE_STALE_IF_ERROR_SECONDS
 * past its TTL, served when no upstream answers.
 */
import type { Config } from "../config";

/** The windows past an entry's TTL in which it may still be served. */
export type StaleWindows = Pick<Config, "cacheSwrSeconds" | "cacheStaleIfErrorSeconds">;

/** What the rule reads of an entry (`CacheEntry`, or anything stored with a TTL). */
export interface Dated {
  /** Epoch ms when it was stored. */
  storedAt: number;
  /** Seconds it is fresh. */
  ttl: number;
}

/** `fresh`: serve it. `stale`: serve it and refresh it once in the background. `expired`: wait for a newer one. */
export type Freshness = "fresh" | "stale" | "expired";

/** Seconds since the entry was stored. */
export function ageSeconds(entry: Dated, now: number): number {
  return Math.max(0, Math.floor((now - entry.storedAt) / 1000));
}

export function isFresh(entry: Dated, now: number): boolean {
  return ageSeconds(entry, now) < entry.ttl;
}

export function freshness(entry: Dated, now: number, windows: StaleWindows): Freshness {
  const age = ageSeconds(entry, now);
  return age < entry.ttl ? "fresh" : age < entry.ttl + windows.cacheSwrSeconds ? "stale" : "expired";
}

/** Whether the entry may stand in when no upstream gave an answer (stale-if-error). */
export function servesOnError(entry: Dated, now: number, windows: StaleWindows): boolean {
  return ageSeconds(entry, now) < entry.ttl + windows.cacheStaleIfErrorSeconds;
}

/** Seconds a tier keeps an entry of `ttl`: until neither window can serve it any more. */
export function keepSeconds(ttl: number, windows: StaleWindows): number {
  return ttl + Math.max(windows.cacheSwrSeconds, windows.cacheStaleIfErrorSeconds);
}

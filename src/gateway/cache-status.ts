/**
 * How an answer was served: HIT (fresh), MISS (fetched for this request, possibly shared with
 * concurrent ones, or no upstream could answer and nothing was cached), STALE (past TTL, served
 * while one background refresh runs), STALE-IF-ERROR (every upstream failed), REVALIDATED (an
 * upstream answered at a lower block height, so the higher-height entry was kept), BYPASS
 * (refused or answered before the cache: 4xx of the gateway's own, 405, preflight).
 */
export const CACHE_STATUSES = ["HIT", "MISS", "STALE", "STALE-IF-ERROR", "REVALIDATED", "BYPASS"] as const;
export type CacheStatus = (typeof CACHE_STATUSES)[number];

/**
 * How a request was served, as X-Cache says it: HIT (fresh), MISS (fetched for this request,
 * possibly shared with concurrent ones, or no upstream could answer and nothing was cached), STALE
 * (past TTL, served while one background refresh runs), STALE-IF-ERROR (every upstream failed),
 * REVALIDATED (an upstream answered at a lower block height, so the higher-height entry was
 * kept), BYPASS (refused or answered before the cache: 4xx of the gateway's own, 405, preflight).
 * On a data-center miss through the shield tier, the status is what the client got: MISS for a
 * fresh answer (the shield's or the upstream's), else the shield's STALE, STALE-IF-ERROR or
 * REVALIDATED.
 */
const CACHE_STATUSES = ["HIT", "MISS", "STALE", "STALE-IF-ERROR", "REVALIDATED", "BYPASS"] as const;
export type CacheStatus = (typeof CACHE_STATUSES)[number];

/**
 * Follows the status in X-Cache (`MISS, SHIELD-FAIL-OPEN`) when the shield tier failed and the Worker asked the
 * upstreams itself.
 */
const SHIELD_FAIL_OPEN = "SHIELD-FAIL-OPEN";

/** Every X-Cache value, as a pattern (OpenAPI). */
export const X_CACHE_PATTERN = `^(${CACHE_STATUSES.join("|")})(, ${SHIELD_FAIL_OPEN})?$`;

/** How the shield tier took part in a data-center miss: what the shield did, or why the Worker went around it. */
export type ShieldTrace = { status: string; ms: number } | { fault: string; ms: number };

/** The X-Cache value of an answer served with `status`, after `shield` (if the miss went that way). */
export function xCache(status: CacheStatus, shield: ShieldTrace | undefined): string {
  return shield && "fault" in shield ? `${status}, ${SHIELD_FAIL_OPEN}` : status;
}

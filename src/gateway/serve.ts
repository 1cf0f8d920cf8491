/**
 * Answers one validated query from the cache tiers and the upstreams, with the semantics of
 * nginx's proxy_cache + proxy_cache_lock + proxy_cache_use_stale (updating, error, timeout,
 * http_5xx, http_429) + proxy_cache_background_update, and Cosmos block-height monotonicity.
 * Tiers, nearest first: the isolate's memory, the data center's Cache API, then (miss.ts) the
 * key's shield or the upstreams.
 */
import type { Context } from "hono";
import { setMetric } from "hono/timing";
import type { Config } from "../config";
import { ApiError } from "../errors";
import { ageSeconds, queryKeys, readEntry, writeEntry, type CachedAnswer, type QueryKeys } from "./cache-entry";
import type { CacheStatus, ShieldTrace } from "./cache-status";
import { coalesce, isInflight } from "./coalesce";
import type { GatewayEnv } from "./gateway-env";
import { newest } from "./height-rule";
import { hotFresh, hotPut } from "./hot-cache";
import type { MatchedQuery } from "./match";
import { obtain, shieldTraceOf, type Obtained } from "./miss";
import { answerResponse } from "./respond";
import type { ShieldNamespace } from "./shield/client";
import type { ShieldMode } from "./shield/protocol";

/** What one refresh produced for a key. */
interface Refreshed extends Obtained {
  /** True when the answer was behind the data center's entry's height and the entry was kept. */
  kept: boolean;
}

/** The handler: serves `c.var.query`. Throws the 502/504 ApiError when no answer can be given. */
export async function serveQuery(c: Context<GatewayEnv>): Promise<Response> {
  const config = c.get("config");
  const query = c.get("query");
  const ctx = c.executionCtx as ExecutionContext;
  const shields = config.cacheShield ? c.env.QUERY_SHIELDS : null;
  const keys = queryKeys(c.req.url, config, query);
  const answer = (entry: CachedAnswer, status: CacheStatus) => {
    c.set("cache", status);
    c.set("answered", { key: keys.hot, answer: entry });
    return answerResponse(c.req.raw, entry, config, Date.now());
  };

  const hot = hotFresh(keys.hot, c.get("startedAt"));
  if (hot) return answer(hot, "HIT");
  const cached = await readEntry(keys.cache);
  const age = cached ? ageSeconds(cached, Date.now()) : 0;
  const refresh = (mode: ShieldMode) => coalesce(keys.cache, ctx, () => fetchAndStore(config, shields, keys, query, mode));

  if (cached && age < cached.ttl) {
    hotPut(keys.hot, cached, query.pattern);
    return answer(cached, "HIT");
  }
  if (cached && age < cached.ttl + config.cacheSwrSeconds) {
    // One background refresh per key: later requests in the window find it in flight.
    if (!isInflight(keys.cache)) ctx.waitUntil(refresh("refresh").catch(() => undefined));
    return answer(cached, "STALE");
  }
  // Also the status of a failure with nothing to fall back on: the request did go to the upstreams.
  c.set("cache", "MISS");
  const asked = Date.now();
  try {
    const { entry, kept, shield } = await refresh("miss");
    if (shield) c.set("shield", shield);
    return answer(entry, kept ? "REVALIDATED" : servedAs(shield));
  } catch (err) {
    const shield = shieldTraceOf(err);
    if (shield) c.set("shield", shield);
    const failedUpstream = err instanceof ApiError && (err.status === 502 || err.status === 504);
    if (cached && failedUpstream && age < cached.ttl + config.cacheStaleIfErrorSeconds) return answer(cached, "STALE-IF-ERROR");
    throw err;
  } finally {
    c.set("upstreamMs", Date.now() - asked);
    setMetric(c, "upstream", Date.now() - asked);
  }
}

/** The client's X-Cache for a fetched answer: MISS, unless the shield stood in with an older one. */
function servedAs(shield: ShieldTrace | undefined): CacheStatus {
  const status = shield && "status" in shield ? shield.status : "MISS";
  return status === "STALE" || status === "STALE-IF-ERROR" || status === "REVALIDATED" ? status : "MISS";
}

/** Obtains an answer (miss.ts) and stores it, unless it is at a lower block height than the entry stored now. */
async function fetchAndStore(config: Config, shields: ShieldNamespace | null, keys: QueryKeys, query: MatchedQuery, mode: ShieldMode): Promise<Refreshed> {
  const obtained = await obtain(config, shields, query, mode);
  // Re-read: another request or a background refresh may have stored a higher height meanwhile.
  const { entry, kept } = newest(await readEntry(keys.cache), obtained.entry);
  await writeEntry(keys.cache, entry, config);
  hotPut(keys.hot, entry, query.pattern);
  return { ...obtained, entry, kept };
}

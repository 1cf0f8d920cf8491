/**
 * Answers one validated query from the cache and the upstreams, with the semantics of nginx's
 * proxy_cache + proxy_cache_lock + proxy_cache_use_stale (updating, error, timeout, http_5xx,
 * http_429) + proxy_cache_background_update, and Cosmos block-height monotonicity.
 */
import type { Context } from "hono";
import { setMetric } from "hono/timing";
import type { Config } from "../config";
import { ApiError } from "../errors";
import { ageSeconds, etagOf, queryKeys, readEntry, writeEntry, type CachedAnswer, type QueryKeys } from "./cache-entry";
import type { CacheStatus } from "./cache-status";
import { coalesce, isInflight } from "./coalesce";
import type { GatewayEnv } from "./gateway-env";
import { hotFresh, hotPut } from "./hot-cache";
import type { MatchedQuery } from "./match";
import { answerResponse } from "./respond";
import { answerTtl } from "./route-table";
import { askUpstreams } from "./upstreams";

/** What one upstream round produced for a key. */
interface Refreshed {
  entry: CachedAnswer;
  /** True when the upstream was behind the cached entry's height and the entry was kept. */
  kept: boolean;
}

/** The handler: serves `c.var.query`. Throws the 502/504 ApiError when no answer can be given. */
export async function serveQuery(c: Context<GatewayEnv>): Promise<Response> {
  const config = c.get("config");
  const query = c.get("query");
  const ctx = c.executionCtx as ExecutionContext;
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
  const refresh = () => coalesce(keys.cache, ctx, () => fetchAndStore(config, keys, query));

  if (cached && age < cached.ttl) {
    hotPut(keys.hot, cached, query.pattern);
    return answer(cached, "HIT");
  }
  if (cached && age < cached.ttl + config.cacheSwrSeconds) {
    // One background refresh per key: later requests in the window find it in flight.
    if (!isInflight(keys.cache)) ctx.waitUntil(refresh().catch(() => undefined));
    return answer(cached, "STALE");
  }
  // Also the status of a failure with nothing to fall back on: the request did go to the upstreams.
  c.set("cache", "MISS");
  const asked = Date.now();
  try {
    const { entry, kept } = await refresh();
    return answer(entry, kept ? "REVALIDATED" : "MISS");
  } catch (err) {
    const failedUpstream = err instanceof ApiError && (err.status === 502 || err.status === 504);
    if (cached && failedUpstream && age < cached.ttl + config.cacheStaleIfErrorSeconds) return answer(cached, "STALE-IF-ERROR");
    throw err;
  } finally {
    c.set("upstreamMs", Date.now() - asked);
    setMetric(c, "upstream", Date.now() - asked);
  }
}

/**
 * Asks the upstreams and stores the answer, unless it is at a lower block height than the entry
 * stored now. `askUpstreams` is the miss path's one call to the nodes.
 */
async function fetchAndStore(config: Config, keys: QueryKeys, query: MatchedQuery): Promise<Refreshed> {
  const answer = await askUpstreams(config, query);
  const now = Date.now();
  const ttl = answerTtl(query.route, answer.status, query.height !== null);
  const fresh: CachedAnswer = { status: answer.status, body: answer.body, height: answer.height, storedAt: now, ttl, etag: await etagOf(answer.status, answer.body) };
  // Re-read: another request or a background refresh may have stored a higher height meanwhile.
  const current = await readEntry(keys.cache);
  // Heights compare only when both answers carry one: a node behind a proxy that strips the header still refreshes.
  if (current?.height != null && fresh.height !== null && fresh.height < current.height) {
    // A lagging node must not take the data back in time; the higher-height entry is confirmed as the newest known.
    const kept = { ...current, storedAt: now };
    await writeEntry(keys.cache, kept, config);
    hotPut(keys.hot, kept, query.pattern);
    return { entry: kept, kept: true };
  }
  await writeEntry(keys.cache, fresh, config);
  hotPut(keys.hot, fresh, query.pattern);
  return { entry: fresh, kept: false };
}

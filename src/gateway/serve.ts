/**
 * Answers one matched query from the cache and the upstreams, with the semantics of nginx's
 * proxy_cache + proxy_cache_lock + proxy_cache_use_stale (updating, error, timeout, http_5xx,
 * http_429) + proxy_cache_background_update, and Cosmos block-height monotonicity.
 */
import type { Config } from "../config";
import { ApiError } from "../errors";
import { ageSeconds, cacheKey, etagOf, readEntry, writeEntry, type CachedAnswer } from "./cache-entry";
import { coalesce, isInflight } from "./coalesce";
import { hotFresh, hotPut } from "./hot-cache";
import type { MatchedQuery } from "./match";
import { CORS_HEADERS, answerResponse } from "./respond";
import { ERROR_ANSWER_TTL } from "./route-table";
import { askUpstreams } from "./upstreams";

/** What one upstream round produced for a key. */
interface Refreshed {
  entry: CachedAnswer;
  /** True when the upstream was behind the cached entry's height and the entry was kept. */
  kept: boolean;
  upstreamMs: number;
}

/** Serves `match` for `request`. Throws the 502/504 ApiError when no answer can be given. */
export async function serveQuery(config: Config, ctx: ExecutionContext, request: Request, match: MatchedQuery): Promise<Response> {
  const startedAt = Date.now();
  const key = cacheKey(new URL(request.url).origin, config, match.upstreamPath);
  const hot = hotFresh(key.url, startedAt);
  if (hot) return answerResponse(request, hot, "HIT", config, { startedAt });
  const cached = await readEntry(key);
  const age = cached ? ageSeconds(cached, Date.now()) : 0;
  const refresh = () => coalesce(key.url, ctx, () => fetchAndStore(config, key, match));

  if (cached && age < cached.ttl) {
    hotPut(key.url, cached);
    return answerResponse(request, cached, "HIT", config, { startedAt });
  }
  if (cached && age < cached.ttl + config.cacheSwrSeconds) {
    // One background refresh per key: later requests in the window find it in flight.
    if (!isInflight(key.url)) ctx.waitUntil(refresh().catch(() => undefined));
    return answerResponse(request, cached, "STALE", config, { startedAt });
  }
  try {
    const { entry, kept, upstreamMs } = await refresh();
    return answerResponse(request, entry, kept ? "REVALIDATED" : "MISS", config, { startedAt, upstreamMs });
  } catch (err) {
    const failedUpstream = err instanceof ApiError && (err.status === 502 || err.status === 504);
    if (cached && failedUpstream && age < cached.ttl + config.cacheStaleIfErrorSeconds) {
      return answerResponse(request, cached, "STALE-IF-ERROR", config, { startedAt });
    }
    throw err;
  }
}

/** Asks the upstreams and stores the answer, unless it is at a lower block height than the entry stored now. */
async function fetchAndStore(config: Config, key: Request, match: MatchedQuery): Promise<Refreshed> {
  const answer = await askUpstreams(config, match.upstreamPath, { ...CORS_HEADERS });
  const ttl = answer.status < 300 ? match.route.ttl : Math.min(match.route.ttl, ERROR_ANSWER_TTL);
  const now = Date.now();
  const fresh: CachedAnswer = { status: answer.status, body: answer.body, height: answer.height, storedAt: now, ttl, etag: await etagOf(answer.status, answer.body) };
  // Re-read: another request or a background refresh may have stored a higher height meanwhile.
  const current = await readEntry(key);
  // Heights compare only when both answers carry one: a node behind a proxy that strips the header still refreshes.
  if (current?.height != null && fresh.height !== null && fresh.height < current.height) {
    // A lagging node must not take the data back in time; the higher-height entry is confirmed as the newest known.
    const kept = { ...current, storedAt: now };
    await writeEntry(key, kept, config);
    hotPut(key.url, kept);
    return { entry: kept, kept: true, upstreamMs: answer.upstreamMs };
  }
  await writeEntry(key, fresh, config);
  hotPut(key.url, fresh);
  return { entry: fresh, kept: false, upstreamMs: answer.upstreamMs };
}

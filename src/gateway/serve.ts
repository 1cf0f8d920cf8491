/**
 * Answers one matched query from the cache tiers and the upstreams, with the semantics of nginx's
 * proxy_cache + proxy_cache_lock + proxy_cache_use_stale (updating, error, timeout, http_5xx,
 * http_429) + proxy_cache_background_update, and Cosmos block-height monotonicity. Tiers, nearest
 * first: the isolate's memory, the data center's Cache API, then (miss.ts) the key's shield or
 * the upstreams.
 */
import type { Config } from "../config";
import { ApiError } from "../errors";
import { ageSeconds, cacheKey, readEntry, writeEntry } from "./cache-entry";
import { coalesce, isInflight } from "./coalesce";
import { newest } from "./height-rule";
import { hotFresh, hotPut } from "./hot-cache";
import type { MatchedQuery } from "./match";
import { obtain, type Obtained } from "./miss";
import { answerResponse, type CacheStatus } from "./respond";
import type { ShieldNamespace } from "./shield/client";
import type { ShieldMode } from "./shield/protocol";

/** What one refresh produced for a key. */
interface Refreshed extends Obtained {
  /** True when the answer was behind the data center's entry's height and the entry was kept. */
  kept: boolean;
}

/**
 * Serves `match` for `request`; `shields` is the shield namespace when CACHE_SHIELD is on. Throws
 * the 502/504 ApiError when no answer can be given.
 */
export async function serveQuery(config: Config, ctx: ExecutionContext, request: Request, match: MatchedQuery, shields: ShieldNamespace | null = null): Promise<Response> {
  const startedAt = Date.now();
  const key = cacheKey(new URL(request.url).origin, config, match.upstreamPath);
  const hot = hotFresh(key.url, startedAt);
  if (hot) return answerResponse(request, hot, "HIT", config, { startedAt });
  const cached = await readEntry(key);
  const age = cached ? ageSeconds(cached, Date.now()) : 0;
  const refresh = (mode: ShieldMode) => coalesce(key.url, ctx, () => fetchAndStore(config, shields, key, match, mode));

  if (cached && age < cached.ttl) {
    hotPut(key.url, cached);
    return answerResponse(request, cached, "HIT", config, { startedAt });
  }
  if (cached && age < cached.ttl + config.cacheSwrSeconds) {
    // One background refresh per key: later requests in the window find it in flight.
    if (!isInflight(key.url)) ctx.waitUntil(refresh("refresh").catch(() => undefined));
    return answerResponse(request, cached, "STALE", config, { startedAt });
  }
  try {
    const { entry, kept, upstreamMs, shield } = await refresh("miss");
    return answerResponse(request, entry, kept ? "REVALIDATED" : servedAs(shield), config, { startedAt, upstreamMs, shield });
  } catch (err) {
    const failedUpstream = err instanceof ApiError && (err.status === 502 || err.status === 504);
    if (cached && failedUpstream && age < cached.ttl + config.cacheStaleIfErrorSeconds) {
      return answerResponse(request, cached, "STALE-IF-ERROR", config, { startedAt });
    }
    throw err;
  }
}

/** The client's X-Cache for a fetched answer: MISS, unless the shield stood in with an older one. */
function servedAs(shield: Obtained["shield"]): CacheStatus {
  const status = shield && "status" in shield ? shield.status : "MISS";
  return status === "STALE" || status === "STALE-IF-ERROR" || status === "REVALIDATED" ? status : "MISS";
}

/** Obtains an answer and stores it, unless it is at a lower block height than the entry stored now. */
async function fetchAndStore(config: Config, shields: ShieldNamespace | null, key: Request, match: MatchedQuery, mode: ShieldMode): Promise<Refreshed> {
  const obtained = await obtain(config, shields, match, mode);
  // Re-read: another request or a background refresh may have stored a higher height meanwhile.
  const { entry, kept } = newest(await readEntry(key), obtained.entry);
  await writeEntry(key, entry, config);
  hotPut(key.url, entry);
  return { ...obtained, entry, kept };
}

/**
 * Answers one validated query from the data center's cache and beyond, with the semantics of
 * nginx's proxy_cache + proxy_cache_lock + proxy_cache_use_stale (updating, error, timeout,
 * http_5xx, http_429) + proxy_cache_background_update, and Cosmos block-height monotonicity.
 * The isolate's memory answered before validation already (hot-tier.ts); here the data center's
 * Cache API, then (miss.ts) the key's shield or the upstreams.
 */
import type { Context } from "hono";
import { basePath } from "hono/route";
import type { Config } from "../config";
import { queryKeys, readEntry, writeEntry, type QueryKeys } from "./cache-entry";
import { coalesce, isInflight } from "./coalesce";
import { freshness, servesOnError } from "./freshness";
import type { GatewayEnv } from "./gateway-env";
import { newest } from "./height-rule";
import { hotPut } from "./hot-cache";
import type { MatchedQuery } from "./match";
import { obtain, type Obtained } from "./miss";
import { respond } from "./respond";
import type { ShieldNamespace } from "./shield/client";
import type { ShieldMode } from "./shield/protocol";
import { noUpstreamAnswered } from "./upstreams";

/** The handler: serves `c.var.query`. Throws the 502/504 ApiError when no answer can be given. */
export async function serveQuery(c: Context<GatewayEnv>): Promise<Response> {
  const config = c.get("config");
  const query = c.get("query");
  const ctx = c.executionCtx as ExecutionContext;
  const shields = config.cacheShield ? c.env.QUERY_SHIELDS : null;
  const keys = queryKeys(c.req.url, basePath(c), config, query);
  // Concurrent work for one key in this isolate, a background refresh or a miss, is one request beyond the data center.
  const fetchShared = (mode: ShieldMode) =>
    coalesce(keys.cache, ctx, () => fetchAndStore(config, shields, keys, query, mode, c.get("requestId")));

  const cached = await readEntry(keys.cache);
  const state = cached ? freshness(cached, Date.now(), config) : "expired";
  if (cached && state === "fresh") {
    hotPut(keys.hot, cached);
    return respond(c, { status: "HIT", entry: cached });
  }
  if (cached && state === "stale") {
    // One background refresh per key: later requests in the window find it in flight.
    if (!isInflight(keys.cache)) ctx.waitUntil(fetchShared("refresh").catch(() => undefined));
    return respond(c, { status: "STALE", entry: cached });
  }
  const started = Date.now();
  const obtained = await fetchShared("miss").catch((failure: unknown): Obtained => ({ failure }));
  c.set("missMs", Date.now() - started);
  if (obtained.shield) c.set("shield", obtained.shield);
  if (!("failure" in obtained)) return respond(c, obtained);
  if (cached && noUpstreamAnswered(obtained.failure) && servesOnError(cached, Date.now(), config))
    return respond(c, { status: "STALE-IF-ERROR", entry: cached });
  return respond(c, { status: "MISS", failure: obtained.failure });
}

/** Obtains an entry (miss.ts) and stores it, unless it is at a lower block height than the entry stored now. */
async function fetchAndStore(
  config: Config,
  shields: ShieldNamespace | null,
  keys: QueryKeys,
  query: MatchedQuery,
  mode: ShieldMode,
  requestId: string,
): Promise<Obtained> {
  const obtained = await obtain(config, shields, query, mode, requestId);
  if ("failure" in obtained) return obtained;
  // Re-read: another request or a background refresh may have stored a higher height meanwhile.
  const { entry, kept } = newest(await readEntry(keys.cache), obtained.entry);
  await writeEntry(keys.cache, entry, config);
  hotPut(keys.hot, entry);
  return { ...obtained, entry, status: kept ? "REVALIDATED" : obtained.status };
}

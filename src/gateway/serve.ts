/**
 * Answers one validated query from the data center's cache and beyond, with the semantics of
 * nginx's proxy_cache + proxy_cache_lock + proxy_cache_use_stale (updating, error, timeout,
 * http_5xx, http_429) + proxy_cache_background_update, and Cosmos block-height monotonicity.
 * The isolate's memory answered before the router already (memory-answer.ts); here the data center's
 * Cache API, then (miss.ts) the key's shield or the upstreams.
 */
import type { Context } from "hono";
import { basePath, routePath } from "hono/route";
import type { Config } from "../config";
import { ApiError } from "../errors";
import { queryKeys, readEntry, writeEntry, type QueryKeys } from "./cache-entry";
import { coalesce, isInflight } from "./coalesce";
import { freshness, servesOnError } from "./freshness";
import type { GatewayEnv } from "./gateway-env";
import { newest } from "./height-rule";
import { hotPut } from "./hot-cache";
import type { ShieldTrace } from "./cache-status";
import { obtain, type MissAsk, type Obtained } from "./miss";
import { respond, type Served } from "./respond";
import { answerTtl } from "./route-table";
import type { ShieldNamespace } from "./shield/client";
import type { ShieldMode } from "./shield/protocol";
import {
  belowFloor,
  blocksBehind,
  boundsNow,
  everyNodeBehind,
  markServed,
  noteAnswered,
  withinBounds,
} from "./served-height";
import { noUpstreamAnswered } from "./upstreams";

/** The handler: serves `c.var.query`. Throws the 502/504 ApiError when no answer can be given. */
export async function serveQuery(c: Context<GatewayEnv>): Promise<Response> {
  const config = c.get("config");
  const query = c.get("query");
  const historical = query.height !== null;
  const ttls = { success: answerTtl(query.route, 200, historical), error: answerTtl(query.route, 400, historical) };
  const bounds = historical ? {} : boundsNow();
  const ask = { query: { upstreamPath: query.upstreamPath, height: query.height, ...bounds }, ttls };
  const outcome = await serveFromTiers(tiersOf(c), queryKeys(c.req.url, basePath(c), config, ask.query), ask);
  const served = recorded(c, outcome);
  if (!historical && "entry" in served) {
    markServed(served.entry.height);
    const behind = blocksBehind(served.entry.height);
    if (behind > 0) c.set("behind", behind);
  }
  return respond(c, served);
}

/** What the tiers beyond the isolate's memory need of the request. */
export interface Tiers {
  config: Config;
  ctx: ExecutionContext;
  shields: ShieldNamespace | null;
  requestId: string;
  /** The route pattern that asked (kept with a hot entry, for the access log of the hits it answers). */
  route: string;
}

export function tiersOf(c: Context<GatewayEnv>): Tiers {
  const config = c.get("config");
  return {
    config,
    ctx: c.executionCtx as ExecutionContext,
    shields: config.cacheShield ? c.env.QUERY_SHIELDS : null,
    requestId: c.get("requestId"),
    route: routePath(c),
  };
}

/** How the tiers served one key, with the miss's wait and the shield's part when there was a miss. */
export interface TierOutcome {
  served: Served;
  missMs?: number;
  shield?: ShieldTrace;
}

/**
 * Records a miss's wait and the shield's part on the request (Server-Timing, the access log); gives what was served.
 */
export function recorded(c: Context<GatewayEnv>, outcome: TierOutcome): Served {
  if (outcome.missMs !== undefined) c.set("missMs", outcome.missMs);
  if (outcome.shield) c.set("shield", outcome.shield);
  const served = outcome.served;
  // A miss names the node that answered it (X-Edge-Upstream, X-Edge-Attempts).
  if (outcome.missMs !== undefined && "entry" in served && served.entry.upstream !== undefined)
    c.set("upstream", { origin: served.entry.upstream, attempts: served.entry.attempts ?? 1 });
  return served;
}

/**
 * Serves `ask` (kept under `keys`) from the Cache API, else the shield or the upstreams. Never throws. Nothing below
 * `ask.query.floor` is served (served-height.ts): such an entry counts as absent, such an answer as a failure.
 */
export async function serveFromTiers(tiers: Tiers, keys: QueryKeys, ask: MissAsk): Promise<TierOutcome> {
  const { config, ctx } = tiers;
  // Concurrent work for one key in this isolate, a background refresh or a miss, is one request beyond the data center.
  const fetchShared = (mode: ShieldMode) => coalesce(keys.cache, ctx, () => fetchAndStore(tiers, keys, ask, mode));
  const floor = ask.query.floor ?? 0;
  // Only a latest read is held to the bounds and counts toward the 60 s of the floor (served-height.ts).
  const latest = ask.query.floor !== undefined;

  const stored = await readEntry(keys.cache);
  const cached = stored && withinBounds(stored.height, ask.query) ? stored : null;
  const state = cached ? freshness(cached, Date.now(), config) : "expired";
  if (cached && state === "fresh") {
    hotPut(keys.hot, cached, tiers.route);
    return { served: { status: "HIT", entry: cached } };
  }
  if (cached && state === "stale") {
    // One background refresh per key: later requests in the window find it in flight.
    if (!isInflight(keys.cache)) ctx.waitUntil(fetchShared("refresh").catch(() => undefined));
    return { served: { status: "STALE", entry: cached } };
  }
  const started = Date.now();
  const got = await fetchShared("miss").catch((failure: unknown): Obtained => ({ failure }));
  const missMs = Date.now() - started;
  const shield = got.shield;
  if (latest) noteAnswered("entry" in got ? got.entry.height : bestHeightOf(got.failure));
  // A shield's entry of its own may be below what this isolate served (one above the ceiling the shield drops itself,
  // and a fresh answer above it was believed by the node board: a second node reached it).
  const obtained =
    "entry" in got && belowFloor(got.entry.height, floor)
      ? { failure: everyNodeBehind(floor, `the shield answered height ${got.entry.height}`) }
      : got;
  if (!("failure" in obtained)) return { served: obtained, missMs, shield };
  if (cached && noUpstreamAnswered(obtained.failure) && servesOnError(cached, Date.now(), config))
    return { served: { status: "STALE-IF-ERROR", entry: cached }, missMs, shield };
  return { served: { status: "MISS", failure: obtained.failure }, missMs, shield };
}

/** Obtains an entry (miss.ts) and stores it, unless it is at a lower block height than the entry stored now. */
async function fetchAndStore(tiers: Tiers, keys: QueryKeys, ask: MissAsk, mode: ShieldMode): Promise<Obtained> {
  const { config } = tiers;
  const background = (work: Promise<unknown>) => tiers.ctx.waitUntil(work);
  const obtained = await obtain(config, tiers.shields, ask, mode, tiers.requestId, background);
  if ("failure" in obtained) return obtained;
  // Re-read: another request or a background refresh may have stored a higher height meanwhile.
  const { entry, kept } = newest(await readEntry(keys.cache), obtained.entry, ask.query.ceiling);
  await writeEntry(keys.cache, entry, config);
  hotPut(keys.hot, entry, tiers.route);
  // A kept entry is served for this miss, which still names the node it asked.
  const { upstream, attempts } = obtained.entry;
  const served = kept && upstream !== undefined ? { ...entry, upstream, attempts } : entry;
  return { ...obtained, entry: served, status: kept ? "REVALIDATED" : obtained.status };
}

/** The best height an UPSTREAM_BEHIND failure reports (every node answered below the floor), else null. */
function bestHeightOf(failure: unknown): number | null {
  const best = failure instanceof ApiError ? failure.metadata?.best_height : undefined;
  return best === undefined ? null : Number(best);
}

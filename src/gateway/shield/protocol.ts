/**
 * What a Worker and a key's shield say to each other: the query and how long its answers are
 * fresh (route-table facts the shield cannot know from a path), never settings; the shield reads
 * its configuration itself (durable-objects/gateway/QueryShield.ts), as every Durable Object does.
 */
import type { Config } from "../../config";
import type { ErrorSpec } from "../../errors";
import type { AnswerTtls, CacheEntry } from "../cache-entry";
import type { UpstreamQuery } from "../upstreams";

/**
 * `miss`: the data center has nothing it may serve, so a shield entry within its SWR window will
 * do. `refresh`: the data center is already serving its stale copy; wait for a newer answer.
 */
export type ShieldMode = "miss" | "refresh";

export interface ShieldAsk {
  /** The upstream path with its canonical query, and the height of a historical read: the key. */
  query: UpstreamQuery;
  /** Seconds an answer to it is fresh. */
  ttls: AnswerTtls;
  mode: ShieldMode;
}

/** What the shield did: as the gateway's X-Cache values, seen from the shield. */
type ShieldStatus = "HIT" | "MISS" | "STALE" | "STALE-IF-ERROR" | "REVALIDATED";

/** An entry (with how the shield came by it), or the upstreams' failure when the shield had nothing to stand in. */
export type ShieldOutcome = { ok: true; entry: CacheEntry; status: ShieldStatus } | { ok: false; error: ErrorSpec };

/**
 * The shield's reply, sent as soon as it takes the ask: the outcome when it has one at once, else
 * a stream that carries the outcome (JSON) once the upstream round ends. The Worker's bounded
 * wait covers only the reply, so a slow upstream is never mistaken for a slow shield.
 */
export type ShieldReply = { now: ShieldOutcome } | { later: ReadableStream<Uint8Array> };

/**
 * The Durable Object name of a key's shield: the chain id keeps networks apart and a historical read's height apart, as
 * in the cache key.
 */
export function shieldName(chainId: string, query: UpstreamQuery): string {
  return `${chainId}${query.height === null ? "" : `@${query.height}`} ${query.rpc ? "rpc:" : ""}${query.upstreamPath}`;
}

/** Options for a stub: the configured placement of objects created by it. */
export function placement(
  settings: Pick<Config, "cacheShieldLocation">,
): DurableObjectNamespaceGetDurableObjectOptions {
  return settings.cacheShieldLocation ? { locationHint: settings.cacheShieldLocation } : {};
}

/**
 * Where a data-center miss gets its entry: from the key's shield when CACHE_SHIELD is on, else
 * from the upstreams directly. Fail open: when the shield tier cannot be reached, throws or is
 * slow, the Worker asks the upstreams itself with the usual failover, and says so.
 */
import type { Config } from "../config";
import { ApiError } from "../errors";
import { errorText, log } from "../log";
import { entryOf, type AnswerTtls, type CacheEntry } from "./cache-entry";
import type { CacheStatus, ShieldTrace } from "./cache-status";
import { askShield, type ShieldNamespace } from "./shield/client";
import type { ShieldMode, ShieldOutcome } from "./shield/protocol";
import { askUpstreams, type UpstreamQuery } from "./upstreams";

/** What a miss asks for: the upstream query (the key) and how long its answers are fresh. */
export interface MissAsk {
  query: UpstreamQuery;
  ttls: AnswerTtls;
}

/**
 * What a miss obtained, with the shield's part: an entry and the status the client gets for it,
 * or the failure to give one (the upstreams' 502/504, or the shield's verdict that they failed).
 */
export type Obtained =
  | { entry: CacheEntry; status: Exclude<CacheStatus, "HIT" | "BYPASS">; shield?: ShieldTrace }
  | { failure: unknown; shield?: ShieldTrace };

/** `requestId`: the request that started this miss (requests for the same key in this isolate share it). */
export async function obtain(
  config: Config,
  shields: ShieldNamespace | null,
  { query, ttls }: MissAsk,
  mode: ShieldMode,
  requestId?: string,
  background?: (work: Promise<unknown>) => void,
): Promise<Obtained> {
  if (!shields) return askDirect(config, query, ttls, background);
  const started = Date.now();
  let outcome: ShieldOutcome;
  try {
    outcome = await askShield(shields, config, {
      query,
      ttls,
      mode,
    });
  } catch (fault) {
    const shield = { fault: errorText(fault), ms: Date.now() - started };
    log("warn", "shield_fail_open", {
      request_id: requestId,
      path: query.upstreamPath,
      fault: shield.fault,
      shield_ms: shield.ms,
    });
    return { ...(await askDirect(config, query, ttls, background)), shield };
  }
  // The upstreams failed for the shield: its verdict stands, so an outage costs no extra request per city.
  if (!outcome.ok) return { failure: new ApiError(outcome.error) };
  // A fresh answer from the shield (its own or one it just fetched) is the data center's MISS; a stand-in keeps its
  // name.
  const status = outcome.status === "HIT" ? "MISS" : outcome.status;
  return { entry: outcome.entry, status, shield: { status: outcome.status, ms: Date.now() - started } };
}

async function askDirect(
  config: Config,
  query: UpstreamQuery,
  ttls: AnswerTtls,
  background?: (work: Promise<unknown>) => void,
): Promise<Obtained> {
  try {
    const answer = await askUpstreams(config, query, undefined, background);
    return { entry: await entryOf(answer, ttls, Date.now()), status: "MISS" };
  } catch (failure) {
    return { failure };
  }
}

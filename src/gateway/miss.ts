/**
 * Where a data-center miss gets its answer: from the key's shield when CACHE_SHIELD is on, else
 * from the upstreams directly. Fail open: when the shield tier cannot be reached, throws or is
 * slow, the Worker asks the upstreams itself with the usual failover, and says so.
 */
import type { Config } from "../config";
import { ApiError } from "../errors";
import { entryOf, type CachedAnswer } from "./cache-entry";
import type { MatchedQuery } from "./match";
import { CORS_HEADERS, SHIELD_FAIL_OPEN, type ShieldTrace } from "./respond";
import { askShield, type ShieldNamespace } from "./shield/client";
import { shieldSettings, type ShieldMode, type ShieldOutcome } from "./shield/protocol";
import { askUpstreams } from "./upstreams";

/** A miss's answer, how long the upstreams took when this request waited for them, and the shield's part. */
export interface Obtained {
  entry: CachedAnswer;
  upstreamMs?: number;
  shield?: ShieldTrace;
}

/** The answer for `match`; throws the upstreams' 502/504 ApiError when there is none to give. */
export async function obtain(config: Config, shields: ShieldNamespace | null, match: MatchedQuery, mode: ShieldMode): Promise<Obtained> {
  if (!shields) return askDirect(config, match, CORS_HEADERS);
  const started = Date.now();
  let outcome: ShieldOutcome;
  try {
    outcome = await askShield(shields, config, { path: match.upstreamPath, ttl: match.route.ttl, mode, settings: shieldSettings(config) });
  } catch (fault) {
    const shield = { fault: fault instanceof Error ? fault.message : String(fault), ms: Date.now() - started };
    console.warn(JSON.stringify({ level: "warn", event: "shield_fail_open", path: match.upstreamPath, fault: shield.fault, shield_ms: shield.ms }));
    const headers = { ...CORS_HEADERS, "x-cache": `MISS, ${SHIELD_FAIL_OPEN}` };
    return { ...(await askDirect(config, match, headers)), shield };
  }
  // The upstreams failed for the shield: its verdict stands, so an outage costs no extra request per city.
  if (!outcome.ok) throw new ApiError(outcome.error, CORS_HEADERS);
  return { entry: outcome.entry, upstreamMs: outcome.upstreamMs, shield: { status: outcome.status, ms: Date.now() - started } };
}

async function askDirect(config: Config, match: MatchedQuery, errorHeaders: Record<string, string>): Promise<Obtained> {
  const answer = await askUpstreams(config, match.upstreamPath, errorHeaders);
  return { entry: await entryOf(answer, match.route.ttl, Date.now()), upstreamMs: answer.upstreamMs };
}

/**
 * Where a data-center miss gets its answer: from the key's shield when CACHE_SHIELD is on, else
 * from the upstreams directly. Fail open: when the shield tier cannot be reached, throws or is
 * slow, the Worker asks the upstreams itself with the usual failover, and says so.
 */
import type { Config } from "../config";
import { ApiError } from "../errors";
import { entryOf, type AnswerTtls, type CachedAnswer } from "./cache-entry";
import type { ShieldTrace } from "./cache-status";
import type { MatchedQuery } from "./match";
import { answerTtl } from "./route-table";
import { askShield, type ShieldNamespace } from "./shield/client";
import { shieldSettings, type ShieldMode, type ShieldOutcome } from "./shield/protocol";
import { askUpstreams } from "./upstreams";

/**
 * A miss's answer and the shield's part. How long the request waited beyond the data center is
 * measured once, by the caller (serve.ts), around the whole miss.
 */
export interface Obtained {
  entry: CachedAnswer;
  shield?: ShieldTrace;
}

/** What the shield tier did for a miss that failed anyway (the Worker went around it, then the upstreams failed too). */
const failedAfterShield = new WeakMap<object, ShieldTrace>();

/** The shield's part in the miss that threw `err`, if it had one. */
export function shieldTraceOf(err: unknown): ShieldTrace | undefined {
  return typeof err === "object" && err !== null ? failedAfterShield.get(err) : undefined;
}

/** The answer for `query`; throws the upstreams' 502/504 ApiError when there is none to give. */
export async function obtain(config: Config, shields: ShieldNamespace | null, query: MatchedQuery, mode: ShieldMode): Promise<Obtained> {
  const ttls = ttlsOf(query);
  if (!shields) return askDirect(config, query, ttls);
  const started = Date.now();
  let outcome: ShieldOutcome;
  try {
    const upstreamQuery = { upstreamPath: query.upstreamPath, height: query.height };
    outcome = await askShield(shields, config, { query: upstreamQuery, ttls, mode, settings: shieldSettings(config) });
  } catch (fault) {
    const shield = { fault: fault instanceof Error ? fault.message : String(fault), ms: Date.now() - started };
    console.warn(JSON.stringify({ level: "warn", event: "shield_fail_open", path: query.upstreamPath, fault: shield.fault, shield_ms: shield.ms }));
    try {
      return { ...(await askDirect(config, query, ttls)), shield };
    } catch (err) {
      if (typeof err === "object" && err !== null) failedAfterShield.set(err, shield);
      throw err;
    }
  }
  // The upstreams failed for the shield: its verdict stands, so an outage costs no extra request per city.
  if (!outcome.ok) throw new ApiError(outcome.error);
  return { entry: outcome.entry, shield: { status: outcome.status, ms: Date.now() - started } };
}

/** How long an answer to `query` is fresh, by its status. */
function ttlsOf(query: MatchedQuery): AnswerTtls {
  const historical = query.height !== null;
  return { answer: answerTtl(query.route, 200, historical), error: answerTtl(query.route, 400, historical) };
}

async function askDirect(config: Config, query: MatchedQuery, ttls: AnswerTtls): Promise<Obtained> {
  return { entry: await entryOf(await askUpstreams(config, query), ttls, Date.now()) };
}

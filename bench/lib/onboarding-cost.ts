/**
 * What many open onboardings cost per hour, from one run's measured per-onboarding rates: Durable
 * Object requests (one alarm per read of the chain, plus the once-per-onboarding API and page
 * requests) and upstream requests, in the regimes src/onboardings/schedule.ts gives.
 */
import { checkDelayMs } from "../../src/onboardings/schedule.ts";

/** What one run measured of onboardings waiting in `connected`. */
export interface MeasuredWaiting {
  /** ONBOARDING_CHECK_SECONDS. */
  checkSeconds: number;
  /** Upstream requests per waiting onboarding per minute. */
  readsPerMinute: number;
  /** Upstream requests one check makes (one read of operator_authorizations while `connected`). */
  readsPerCheck: number;
  /** ONBOARDING_TTL in seconds, read off a created onboarding. */
  ttlSeconds: number;
}

/** Durable Object requests one onboarding makes besides its checks, by the routes of src/onboardings/routes.ts. */
export const ONCE_PER_ONBOARDING: readonly { what: string; requests: number }[] = [
  { what: "host create with Idempotency-Key (the key's object, which creates the onboarding's)", requests: 2 },
  { what: "the key's record deleted after 24 h (its alarm)", requests: 1 },
  { what: "the customer's page reads the onboarding", requests: 1 },
  { what: "the page's WebSocket subscription", requests: 1 },
  { what: "the page reports the payout (a relayed pairing adds a read of its session)", requests: 1 },
  { what: "the page reports the authorization's transaction hash", requests: 1 },
  { what: "the ended onboarding deleted after 30 days (its alarm)", requests: 1 },
];

export const ONCE_TOTAL = ONCE_PER_ONBOARDING.reduce((sum, item) => sum + item.requests, 0);

export interface CostRow {
  regime: string;
  /** Seconds between two checks by the schedule (null: no checks). */
  delaySeconds: number | null;
  /** Alarms per onboarding per hour. */
  alarmsPerHour: number;
  arithmetic: string;
  doRequestsPerHour: number;
  upstreamPerHour: number;
}

const HOUR_MS = 3_600_000;
const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

/**
 * The cost of `count` onboardings per hour in each regime. A check's period is the schedule's
 * delay plus what the run measured on top of it (the read and the wake-up's own time).
 */
export function costPerHour(measured: MeasuredWaiting, count: number): CostRow[] {
  const baseMs = measured.checkSeconds * 1000;
  const periodS = 60 / (measured.readsPerMinute / measured.readsPerCheck);
  const overheadS = Math.max(0, periodS - measured.checkSeconds);
  const waiting = (regime: string, sinceChangeMs: number): CostRow => {
    const delayS = checkDelayMs(sinceChangeMs, baseMs) / 1000;
    const alarms = 3600 / (delayS + overheadS);
    return {
      regime,
      delaySeconds: delayS,
      alarmsPerHour: alarms,
      arithmetic: `3600 s ÷ (${fmt(delayS, 1)} s + ${fmt(overheadS, 2)} s) = ${fmt(alarms, 1)} alarms × ${fmt(count)}`,
      doRequestsPerHour: alarms * count,
      upstreamPerHour: alarms * measured.readsPerCheck * count,
    };
  };
  const openAlarms = 3600 / measured.ttlSeconds;
  return [
    waiting("waiting, within 30 min of a change", 0),
    waiting("waiting 1 h without a change", HOUR_MS),
    waiting("waiting 5 h without a change", 5 * HOUR_MS),
    waiting("waiting 24 h without a change", 24 * HOUR_MS),
    {
      regime: "open (not paired): only the expiry alarm",
      delaySeconds: null,
      alarmsPerHour: openAlarms,
      arithmetic: `1 alarm per ${fmt(measured.ttlSeconds / 3600)} h = ${fmt(openAlarms, 4)} × ${fmt(count)}`,
      doRequestsPerHour: openAlarms * count,
      upstreamPerHour: 0,
    },
  ];
}

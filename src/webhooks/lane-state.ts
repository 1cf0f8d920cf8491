/**
 * What the delivery lane of one webhook URL stores and says (its machine: ./lane.ts): the lane, its
 * waiting onboardings, its events, effects and answers, and its cadence.
 */
import type { DeliveryAttempt } from "../onboardings/state";
import type { Refusals } from "./refusal-rule";

/** What the lane stores. */
export interface LaneState {
  /** The first failed attempt of the current outage (ms); null while the endpoint answers. */
  failing_since: number | null;
  /** The last attempt the lane knows of during the outage (ms): probes keep their distance from it. */
  last_attempt_at: number | null;
  /**
   * When the endpoint is tried next with a waiting onboarding's event; null: no outage, nobody waits, or a probe is
   * under way.
   */
  next_probe_at: number | null;
  /**
   * The probe under way since (ms); one at a time, and one that never reports back is given up after PROBE_LEASE_MS.
   */
  probing_since: number | null;
  /** The last failed attempt's problem in a few words ("HTTP 503", "no answer within 10 s"); null while it answers. */
  last_error: string | null;
  /** Refusals in a row since the last 2xx (./refusal-rule.ts); absent in a lane stored before they were counted. */
  refusals?: Refusals;
}

/** An onboarding held back by the outage, released when it ends. */
export interface Waiter {
  since: number;
  /** When it was last the probe: probes go to the one that waited longest without being one. */
  probed_at: number | null;
  /**
   * When its oldest event, never attempted, must have an attempt of its own to be given up on time (3 days after it
   * was first held): probes go to the earliest such first, and faster (./attempt-due.ts). Null or absent: none is due.
   */
  due?: number | null;
}

/** What an onboarding is told before an attempt: go, or wait to be released (the endpoint failing since when). */
export type Admission =
  /** `counting`: the lane counts refusals, so a 2xx is to be reported (`answered`) to end the count. */
  | { go: true; counting?: true }
  | { go: false; failing_since: number; next_probe_at: number | null; last_error: string | null };

/**
 * What a probe found: the event delivered, refused for its body alone (the endpoint answers), the
 * attempt failed, or the onboarding had nothing left to deliver.
 */
type ProbeOutcome = "delivered" | "refused" | "failed" | "nothing";

/** A probe's outcome and, when it failed, the problem. */
export interface ProbeResult {
  outcome: ProbeOutcome;
  error: string | null;
}

export type LaneEvent =
  /** An onboarding asks before it attempts its oldest event (`due`: Waiter's). */
  | { type: "admit"; onboarding: string; due?: number | null }
  /** An attempt it was admitted to failed in a way every event shares (no answer, a 5xx, 408, 429). */
  | { type: "failed"; onboarding: string; error: string }
  /** An attempt it was admitted to was refused (a 4xx other than 408 and 429). */
  | { type: "refused"; onboarding: string; error: string }
  /** An attempt it was admitted to was delivered while the lane counts refusals. */
  | { type: "answered"; onboarding: string }
  /** The probe's outcome. */
  | { type: "probed"; onboarding: string; outcome: ProbeOutcome; error?: string | null }
  /** A release reached the onboarding: it is registered no more. */
  | { type: "released"; onboarding: string }
  | { type: "alarm" }
  /** The host fixed its receiver: try it now. */
  | { type: "retry" };

export type LaneEffect =
  | { type: "store"; lane: LaneState }
  | { type: "wait"; onboarding: string; waiter: Waiter }
  | { type: "forget"; onboardings: string[] }
  | { type: "schedule"; at: number | null }
  /** Ask `onboarding` to attempt its oldest event now, then answer `probed`. */
  | { type: "probe"; onboarding: string }
  /** Tell every one of `onboardings` to deliver now, a bounded number at a time; each reached answers `released`. */
  | { type: "release"; onboardings: string[] };

export interface LaneTransition {
  lane: LaneState;
  effects: LaneEffect[];
  answer: Admission;
}

export const ANSWERING: LaneState = {
  failing_since: null,
  last_attempt_at: null,
  next_probe_at: null,
  probing_since: null,
  last_error: null,
};

/** The endpoint is tried at most this often: every 5 s for the first 10 minutes of an outage (1/120 of 10 minutes). */
export const PROBE_MS = 5_000;
/** It is never left untried longer than this. */
export const MAX_PROBE_MS = 5 * 60_000;
/** A probe's attempt takes at most the receiver's timeout (10 s); one not heard of after this is taken as lost. */
export const PROBE_LEASE_MS = 30_000;
/** Releases still owed are sent again this long after they began, if some did not get through (the alarm's lease). */
export const RELEASE_LEASE_MS = 10_000;

/**
 * Milliseconds from one probe to the next, `elapsed` into the outage: 5 s for 10 minutes, then 1/120 of the outage (30
 * s after an hour), at most 5 minutes.
 */
export function probeDelayMs(elapsed: number): number {
  return Math.min(Math.max(PROBE_MS, Math.round(elapsed / 120)), MAX_PROBE_MS);
}

/**
 * What one turn at delivering event `id` came to: an attempt (delivered, or failed), and, when the
 * endpoint is failing, since when and its last error (the event is then held until the lane releases it).
 */
export interface DeliveryTurn {
  /** When the lane was asked (ms). */
  askedAt: number;
  attempt?: DeliveryAttempt;
  failingSince?: number;
  lastError?: string | null;
}

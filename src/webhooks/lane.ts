/**
 * The delivery lane of one webhook URL: a pure function of (lane, waiting onboardings, event, now)
 * to the next lane, its effects and the caller's answer. The WebhookLane Durable Object keeps the
 * lane, performs the effects and feeds what a probe found back in.
 *
 *   answering ──an attempt fails──▶ failing (since that attempt)
 *   failing: every onboarding that asks to attempt is told to wait, and registered;
 *            one waiting onboarding at a time attempts its oldest event (the probe),
 *            every 5 s for the first 10 minutes, then less often, at most every 5 minutes
 *   failing ──a probe is delivered──▶ answering: every waiting onboarding is released at once
 *
 * While the endpoint answers, the lane only answers "go": onboardings attempt side by side, each
 * its own events in order, and nothing is written.
 */

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
}

/** An onboarding held back by the outage, released when it ends. */
export interface Waiter {
  since: number;
  /** When it was last the probe: probes go to the one that waited longest without being one. */
  probed_at: number | null;
}

/** What an onboarding is told before an attempt: go, or wait to be released (the endpoint failing since when). */
export type Admission = { go: true } | { go: false; failing_since: number; next_probe_at: number | null };

/** What a probe found: the event delivered, the attempt failed, or the onboarding had nothing left to deliver. */
export type ProbeOutcome = "delivered" | "failed" | "nothing";

export type LaneEvent =
  /** An onboarding asks before it attempts its oldest event. */
  | { type: "admit"; onboarding: string }
  /** An attempt it was admitted to failed. */
  | { type: "failed"; onboarding: string }
  /** The probe's outcome. */
  | { type: "probed"; onboarding: string; outcome: ProbeOutcome }
  /** A release did not reach the onboarding: it waits again, and the alarm retries. */
  | { type: "unreleased"; onboarding: string }
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
  /** Tell every one of `onboardings` to deliver now; each that cannot be reached answers `unreleased`. */
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
};

/** The endpoint is tried at most this often: every 5 s for the first 10 minutes of an outage (1/120 of 10 minutes). */
const PROBE_MS = 5_000;
/** It is never left untried longer than this. */
export const MAX_PROBE_MS = 5 * 60_000;
/** A probe's attempt takes at most the receiver's timeout (10 s); one not heard of after this is taken as lost. */
export const PROBE_LEASE_MS = 30_000;
/** How soon a release that did not get through is tried again. */
const RELEASE_RETRY_MS = 1_000;

/**
 * Milliseconds from one probe to the next, `elapsed` into the outage: 5 s for 10 minutes, then 1/120 of the outage (30
 * s after an hour), at most 5 minutes.
 */
export function probeDelayMs(elapsed: number): number {
  return Math.min(Math.max(PROBE_MS, Math.round(elapsed / 120)), MAX_PROBE_MS);
}

/**
 * The next state of the lane for `event` at `now`; `waiting` are the onboardings held back (changed only through the
 * effects).
 */
export function laneTransition(
  lane: LaneState,
  waiting: ReadonlyMap<string, Waiter>,
  event: LaneEvent,
  now: number,
): LaneTransition {
  const go: Admission = { go: true };
  const held = (state: LaneState): Admission => ({
    go: false,
    failing_since: state.failing_since!,
    next_probe_at: state.next_probe_at,
  });

  switch (event.type) {
    case "admit": {
      if (lane.failing_since === null) return { lane, effects: [], answer: go };
      return hold(lane, lane, waiting, event.onboarding, now, held);
    }
    case "failed": {
      const failing =
        lane.failing_since === null
          ? { ...ANSWERING, failing_since: now, last_attempt_at: now }
          : { ...lane, last_attempt_at: now };
      return hold(lane, failing, waiting, event.onboarding, now, held);
    }
    case "unreleased":
      return {
        lane,
        effects: [
          { type: "wait", onboarding: event.onboarding, waiter: { since: now, probed_at: null } },
          { type: "schedule", at: now + RELEASE_RETRY_MS },
        ],
        answer: go,
      };
    case "probed": {
      if (lane.failing_since === null) return { lane, effects: [], answer: go };
      lane = { ...lane, probing_since: null };
      if (event.outcome === "delivered") {
        // The outage is over: every onboarding held back goes at once.
        const released = [...waiting.keys()];
        return {
          lane: ANSWERING,
          effects: [
            { type: "store", lane: ANSWERING },
            { type: "forget", onboardings: released },
            { type: "schedule", at: null },
            { type: "release", onboardings: released.filter((id) => id !== event.onboarding) },
          ],
          answer: go,
        };
      }
      if (event.outcome === "nothing") {
        // Nothing of its own to try: another waiting onboarding is the probe, now.
        const next = { ...lane, next_probe_at: Math.max(now, lane.next_probe_at ?? now) };
        return {
          lane: next,
          effects: [
            { type: "forget", onboardings: [event.onboarding] },
            { type: "store", lane: next },
            { type: "schedule", at: next.next_probe_at },
          ],
          answer: go,
        };
      }
      const next = { ...lane, last_attempt_at: now, next_probe_at: now + probeDelayMs(now - lane.failing_since!) };
      return {
        lane: next,
        effects: [
          { type: "store", lane: next },
          { type: "schedule", at: next.next_probe_at },
        ],
        answer: held(next),
      };
    }
    case "retry": {
      if (lane.failing_since === null) return { lane, effects: [], answer: go };
      const next = { ...lane, next_probe_at: now };
      return {
        lane: next,
        effects: [
          { type: "store", lane: next },
          { type: "schedule", at: now },
        ],
        answer: held(next),
      };
    }
    case "alarm": {
      // Answering with onboardings still registered: releases that did not get through are owed.
      if (lane.failing_since === null) {
        const owed = [...waiting.keys()];
        return {
          lane,
          effects:
            owed.length === 0
              ? []
              : [
                  { type: "forget", onboardings: owed },
                  { type: "release", onboardings: owed },
                ],
          answer: go,
        };
      }
      const probe = nextProbe(waiting);
      if (probe === null) {
        // Nobody waits: the next onboarding that asks is registered and sets the next probe.
        const next = { ...lane, next_probe_at: null };
        return {
          lane: next,
          effects: [
            { type: "store", lane: next },
            { type: "schedule", at: null },
          ],
          answer: go,
        };
      }
      if (lane.probing_since !== null && now < lane.probing_since + PROBE_LEASE_MS)
        return { lane, effects: [{ type: "schedule", at: lane.probing_since + PROBE_LEASE_MS }], answer: go };
      if (lane.next_probe_at !== null && lane.next_probe_at > now)
        return { lane, effects: [{ type: "schedule", at: lane.next_probe_at }], answer: go };
      const next = { ...lane, last_attempt_at: now, next_probe_at: null, probing_since: now };
      return {
        lane: next,
        effects: [
          { type: "store", lane: next },
          { type: "schedule", at: now + PROBE_LEASE_MS },
          { type: "wait", onboarding: probe, waiter: { ...waiting.get(probe)!, probed_at: now } },
          { type: "probe", onboarding: probe },
        ],
        answer: go,
      };
    }
  }
}

/**
 * `next` (from `before`) with `onboarding` registered as held back (if it is not yet), and a probe coming unless one is
 * under way.
 */
function hold(
  before: LaneState,
  next: LaneState,
  waiting: ReadonlyMap<string, Waiter>,
  onboarding: string,
  now: number,
  held: (state: LaneState) => Admission,
): LaneTransition {
  if (next.next_probe_at === null && next.probing_since === null) {
    next = {
      ...next,
      next_probe_at: Math.max(now, (next.last_attempt_at ?? now) + probeDelayMs(now - next.failing_since!)),
    };
  }
  const effects: LaneEffect[] = [];
  if (next !== before) effects.push({ type: "store", lane: next });
  if (next.next_probe_at !== before.next_probe_at) effects.push({ type: "schedule", at: next.next_probe_at });
  if (!waiting.has(onboarding)) effects.push({ type: "wait", onboarding, waiter: { since: now, probed_at: null } });
  return { lane: next, effects, answer: held(next) };
}

/** The waiting onboarding that was the probe least recently (never, first), the longest waiting among equals. */
function nextProbe(waiting: ReadonlyMap<string, Waiter>): string | null {
  let best: string | null = null;
  let key: [number, number] = [Infinity, Infinity];
  for (const [id, waiter] of waiting) {
    const candidate: [number, number] = [waiter.probed_at ?? -1, waiter.since];
    if (candidate[0] < key[0] || (candidate[0] === key[0] && candidate[1] < key[1])) {
      best = id;
      key = candidate;
    }
  }
  return best;
}

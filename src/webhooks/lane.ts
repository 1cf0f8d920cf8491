/**
 * The delivery lane of one webhook URL: a pure function of (lane, waiting onboardings, event, now)
 * to the next lane, its effects and the caller's answer. The WebhookLane Durable Object keeps the
 * lane, performs the effects and feeds what a probe found back in.
 *
 *   answering ──an attempt fails──▶ failing (since that attempt)
 *   failing: every onboarding that asks to attempt is told to wait, and registered;
 *            one waiting onboarding at a time attempts its oldest event (the probe),
 *            every 5 s for the first 10 minutes, then less often, at most every 5 minutes
 *   failing ──a probe is delivered, or refused for its body alone──▶ answering: every waiting
 *            onboarding is released, 50 at a time; each stays registered until its release lands
 *
 * While the endpoint answers, the lane only answers "go": onboardings attempt side by side, each
 * its own events in order, and nothing is written. A refusal (a 4xx other than 408 and 429) is
 * reported and counted: once refusals in a row come from several onboardings with no 2xx between
 * (./refusal-rule.ts), the endpoint refuses everything and fails like one that does not answer;
 * until then a refusal is its event's alone, which backs off on its own.
 */
import { attemptsPressing, earliestDue } from "./attempt-due";
import { countRefusal, NO_REFUSALS, refusesEverything, refusingError, type Refusals } from "./refusal-rule";
import {
  ANSWERING,
  PROBE_LEASE_MS,
  PROBE_MS,
  RELEASE_LEASE_MS,
  probeDelayMs,
  type Admission,
  type LaneEvent,
  type LaneEffect,
  type LaneState,
  type LaneTransition,
  type Waiter,
} from "./lane-state";

export {
  ANSWERING,
  type Admission,
  type LaneEffect,
  type LaneEvent,
  type LaneState,
  type LaneTransition,
  type ProbeResult,
  type Waiter,
} from "./lane-state";

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
    last_error: state.last_error,
  });

  switch (event.type) {
    case "admit": {
      if (lane.failing_since === null) return { lane, effects: [], answer: counting(lane) };
      return hold(lane, lane, waiting, event.onboarding, now, held, event.due ?? null);
    }
    case "refused": {
      const refusals = countRefusal(lane.refusals ?? NO_REFUSALS, event.onboarding);
      if (lane.failing_since !== null)
        return hold(lane, { ...lane, refusals, last_attempt_at: now }, waiting, event.onboarding, now, held);
      if (!refusesEverything(refusals)) {
        const next = { ...lane, refusals };
        return { lane: next, effects: [{ type: "store", lane: next }], answer: counting(next) };
      }
      const failing = {
        ...ANSWERING,
        refusals,
        failing_since: now,
        last_attempt_at: now,
        last_error: refusingError(event.error),
      };
      return hold(lane, failing, waiting, event.onboarding, now, held);
    }
    case "answered": {
      if (lane.failing_since !== null) return recovered(lane, waiting, event.onboarding, now);
      if ((lane.refusals ?? NO_REFUSALS).count === 0) return { lane, effects: [], answer: go };
      const next = { ...lane, refusals: NO_REFUSALS };
      return { lane: next, effects: [{ type: "store", lane: next }], answer: go };
    }
    case "failed": {
      const failing =
        lane.failing_since === null
          ? { ...ANSWERING, failing_since: now, last_attempt_at: now, last_error: event.error }
          : { ...lane, last_attempt_at: now, last_error: event.error };
      return hold(lane, failing, waiting, event.onboarding, now, held);
    }
    case "released": {
      // Released during a new outage, it stays registered: the next release tells it again, harmlessly.
      if (lane.failing_since !== null || !waiting.has(event.onboarding)) return { lane, effects: [], answer: go };
      const effects: LaneEffect[] = [{ type: "forget", onboardings: [event.onboarding] }];
      if (waiting.size === 1) effects.push({ type: "schedule", at: null });
      return { lane, effects, answer: go };
    }
    case "probed": {
      if (lane.failing_since === null) return { lane, effects: [], answer: go };
      lane = { ...lane, probing_since: null };
      if (event.outcome === "delivered") return recovered(lane, waiting, event.onboarding, now);
      if (event.outcome === "refused") {
        // A refusal ends the outage (the endpoint answers), unless the endpoint refuses everything.
        const refusals = countRefusal(lane.refusals ?? NO_REFUSALS, event.onboarding);
        if (!refusesEverything(refusals)) return recovered(lane, waiting, event.onboarding, now, refusals);
        lane = { ...lane, refusals };
        event = { ...event, error: event.error && refusingError(event.error) };
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
      const next = {
        ...lane,
        last_attempt_at: now,
        next_probe_at: now + probeDelay(lane, waiting, now),
        last_error: event.error ?? lane.last_error,
      };
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
      // Answering with onboardings still registered: releases that did not land (or never ran: an eviction) are owed.
      if (lane.failing_since === null) {
        const owed = [...waiting.keys()];
        return {
          lane,
          effects:
            owed.length === 0
              ? []
              : [
                  { type: "schedule", at: now + RELEASE_LEASE_MS },
                  { type: "release", onboardings: owed },
                ],
          answer: go,
        };
      }
      const probe = nextProbe(waiting, now);
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
          // The probe is its event's attempt: nothing is due for it any more.
          { type: "wait", onboarding: probe, waiter: { ...waiting.get(probe)!, probed_at: now, due: null } },
          { type: "probe", onboarding: probe },
        ],
        answer: go,
      };
    }
  }
}

/** `go`, asking for the next 2xx to be reported while the lane counts refusals. */
function counting(lane: LaneState): Admission {
  return (lane.refusals ?? NO_REFUSALS).count > 0 ? { go: true, counting: true } : { go: true };
}

/**
 * The endpoint answers again (a probe delivered or refused alone, or a 2xx heard of): the outage is over, every
 * onboarding held back is released, and each stays registered until its release lands. `refusals`: those still
 * counted (none after a 2xx).
 */
function recovered(
  lane: LaneState,
  waiting: ReadonlyMap<string, Waiter>,
  onboarding: string,
  now: number,
  refusals: Refusals = NO_REFUSALS,
): LaneTransition {
  const next = refusals.count === 0 ? ANSWERING : { ...ANSWERING, refusals };
  // The onboarding whose attempt answered is released too when it waits: its next event may have asked while the
  // answer was on its way, and been told to wait.
  const released = [...waiting.keys()];
  return {
    lane: next,
    effects: [
      { type: "store", lane: next },
      ...(waiting.has(onboarding) ? [] : [{ type: "forget" as const, onboardings: [onboarding] }]),
      { type: "schedule", at: released.length === 0 ? null : now + RELEASE_LEASE_MS },
      ...(released.length === 0 ? [] : [{ type: "release" as const, onboardings: released }]),
    ],
    answer: { go: true },
  };
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
  due: number | null = null,
): LaneTransition {
  const effects: LaneEffect[] = [];
  const known = waiting.get(onboarding);
  let after = waiting;
  if (!known || (known.due ?? null) !== due) {
    const waiter = { since: known?.since ?? now, probed_at: known?.probed_at ?? null, due };
    effects.push({ type: "wait", onboarding, waiter });
    after = new Map(waiting).set(onboarding, waiter);
  }
  if (next.probing_since === null) {
    const at = Math.max(now, (next.last_attempt_at ?? now) + probeDelay(next, after, now));
    // A new wait sets the next probe; an attempt come due brings it nearer, never later.
    if (next.next_probe_at === null || at < next.next_probe_at) next = { ...next, next_probe_at: at };
  }
  if (next !== before) effects.unshift({ type: "store", lane: next });
  if (next.next_probe_at !== before.next_probe_at) effects.splice(1, 0, { type: "schedule", at: next.next_probe_at });
  return { lane: next, effects, answer: held(next) };
}

/**
 * Until the next probe: the outage's cadence, or 5 s when the attempts due would press before the probe after it
 * (./attempt-due.ts): the next decision comes only with that probe.
 */
function probeDelay(lane: LaneState, waiting: ReadonlyMap<string, Waiter>, now: number): number {
  const cadence = probeDelayMs(now - lane.failing_since!);
  return attemptsPressing(waiting, now + cadence, PROBE_MS) ? PROBE_MS : cadence;
}

/**
 * While attempts come due faster than the outage's cadence, the waiting onboarding whose attempt is due first;
 * otherwise the one that was the probe least recently (never, first), the longest waiting among equals.
 */
function nextProbe(waiting: ReadonlyMap<string, Waiter>, now: number): string | null {
  if (attemptsPressing(waiting, now, PROBE_MS)) return earliestDue(waiting);
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

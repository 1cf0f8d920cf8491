/**
 * What a turn at delivering an onboarding's event comes to (./delivery-policy.ts): delivered; held
 * while the endpoint fails; backed off when the receiver alone refused it; given up 3 days after its
 * first failure, never without an attempt of its own.
 */
import { pendingHead } from "../onboardings/outbox";
import type { OnboardingState, OutboxEvent } from "../onboardings/state";
import { eventRetryDelayMs, GIVE_UP_AFTER_MS, heldRecheckMs } from "./delivery-policy";
import type { DeliveryTurn } from "./lane-state";
import { delivered, failureOf } from "./standard-webhook";

/**
 * The state after a turn at delivering event `id`: delivered; given up once GIVE_UP_AFTER_MS have
 * passed since its first failure and it has had an attempt of its own; held while the endpoint fails
 * (asking the lane again, if no release comes, after `heldRecheckMs`); or, refused by the receiver
 * alone, tried again after `eventRetryDelayMs`. Never later than the moment it is given up. The event
 * after one given up starts its clock no later than that one's (it was held behind it since).
 */
export function recordTurn(state: OnboardingState, id: string, turn: DeliveryTurn, now: number): OnboardingState {
  const recorded = recordEventTurn(state, id, turn, now);
  // The endpoint just answered (this onboarding's turn was the lane's probe, or a resent event): what the onboarding
  // holds goes now, not at its recheck, since the lane releases only the onboardings waiting on it.
  if (turn.attempt && delivered(turn.attempt))
    return {
      ...recorded,
      events: recorded.events.map((e) =>
        e.held !== null && e.delivered_at === null && e.failed_at === null
          ? { ...e, held: null, next_attempt_at: now }
          : e,
      ),
    };
  const given = recorded.events.find((e) => e.id === id);
  if (!given || given.failed_at === null || given.first_failed_at === null) return recorded;
  const next = pendingHead(recorded);
  if (!next || next.first_failed_at !== null) return recorded;
  const clock = Math.max(given.first_failed_at, Date.parse(next.created_at));
  return { ...recorded, events: recorded.events.map((e) => (e === next ? { ...e, first_failed_at: clock } : e)) };
}

/** When an event not delivered must have had an attempt of its own, to be given up on time; null: it has one. */
export function attemptDueAt(event: OutboxEvent, now: number): number | null {
  return event.attempts.length > 0 ? null : (event.first_failed_at ?? now) + GIVE_UP_AFTER_MS;
}

function recordEventTurn(state: OnboardingState, id: string, turn: DeliveryTurn, now: number): OnboardingState {
  const events = state.events.map((event) => {
    if (event.id !== id || event.delivered_at !== null || event.failed_at !== null) return event;
    const attempts = turn.attempt ? [...event.attempts, turn.attempt] : event.attempts;
    if (turn.attempt && delivered(turn.attempt))
      return { ...event, attempts, delivered_at: turn.attempt.at, next_attempt_at: null, held: null };
    // The lane said "wait", but released this onboarding since: nothing to wait for any more.
    if (!turn.attempt && state.released_at !== null && state.released_at >= turn.askedAt)
      return { ...event, held: null, next_attempt_at: now };
    // The 3 days count from the attempt itself (or, held without one, from now).
    const first = event.first_failed_at ?? (turn.attempt ? Date.parse(turn.attempt.at) : now);
    const giveUpAt = first + GIVE_UP_AFTER_MS;
    const failed = { ...event, attempts, first_failed_at: first };
    // Never given up without an attempt of its own: held past its 3 days, it waits for the lane's probe to try it.
    if (now >= giveUpAt && attempts.length > 0)
      return { ...failed, failed_at: new Date(now).toISOString(), next_attempt_at: null, held: null };
    // Refused alone, it backs off on its own; refused while the lane holds the endpoint failing, it is held.
    if (turn.attempt && failureOf(turn.attempt) === "event" && turn.failingSince === undefined) {
      const refusals = attempts.filter((a) => !delivered(a) && failureOf(a) === "event").length;
      return { ...failed, held: null, next_attempt_at: Math.min(now + eventRetryDelayMs(refusals), giveUpAt) };
    }
    const held = {
      failing_since: turn.failingSince ?? event.held?.failing_since ?? now,
      last_error: turn.lastError ?? event.held?.last_error ?? null,
    };
    const recheck = now + heldRecheckMs(now - first);
    // Past its 3 days without an attempt: the lane's probe comes for it; asking again soon is only a safety net.
    return { ...failed, held, next_attempt_at: giveUpAt > now ? Math.min(recheck, giveUpAt) : now + heldRecheckMs(0) };
  });
  return { ...state, events };
}

/**
 * The onboarding's outbox: events are delivered one at a time, in the order they were written,
 * through the lane of the webhook's URL (src/webhooks/lane.ts). An event whose attempt fails, or
 * whose endpoint is failing, is held until the lane releases it, and holds back the ones after
 * it, so a host never hears `applied` before `authorized`.
 */
import { isOnboardingEnded, type OnboardingEventsLog } from "../protocol/index";
import { HELD_RECHECK_MS, MIN_ATTEMPTS, MIN_RETRY_SPAN_MS, RETENTION_MS } from "./schedule";
import type { DeliveryAttempt, OnboardingState, OutboxEvent } from "./state";
import { delivered } from "../webhooks/standard-webhook";

/** The event to deliver next: the oldest neither delivered nor given up. */
export function pendingHead(state: OnboardingState): OutboxEvent | null {
  return state.events.find((e) => e.delivered_at === null && e.failed_at === null) ?? null;
}

/**
 * What one turn at delivering event `id` came to: an attempt (delivered, or failed), and, when the
 * endpoint is failing, since when (the event is then held until the lane releases it).
 */
export interface DeliveryTurn {
  /** When the lane was asked (ms). */
  askedAt: number;
  attempt?: DeliveryAttempt;
  failingSince?: number;
}

/**
 * The state after a turn at delivering event `id`: delivered; given up (at least 8 attempts over
 * at least 24 hours since its first failed attempt, whenever it was written); or held, asking the
 * lane again only if no release comes within HELD_RECHECK_MS.
 */
export function recordTurn(state: OnboardingState, id: string, turn: DeliveryTurn, now: number): OnboardingState {
  const events = state.events.map((event) => {
    if (event.id !== id || event.delivered_at !== null || event.failed_at !== null) return event;
    const attempts = turn.attempt ? [...event.attempts, turn.attempt] : event.attempts;
    if (turn.attempt && delivered(turn.attempt))
      return { ...event, attempts, delivered_at: turn.attempt.at, next_attempt_at: null, held: null };
    const firstFailed = attempts.length > 0 ? Date.parse(attempts[0]!.at) : null;
    if (turn.attempt && attempts.length >= MIN_ATTEMPTS && now - firstFailed! >= MIN_RETRY_SPAN_MS) {
      return { ...event, attempts, failed_at: turn.attempt.at, next_attempt_at: null, held: null };
    }
    // The lane said "wait", but released this onboarding since: nothing to wait for any more.
    if (!turn.attempt && state.released_at !== null && state.released_at >= turn.askedAt)
      return { ...event, held: null, next_attempt_at: now };
    const failingSince = turn.failingSince ?? event.held?.failing_since ?? now;
    return { ...event, attempts, next_attempt_at: now + HELD_RECHECK_MS, held: { failing_since: failingSince } };
  });
  return { ...state, events };
}

/** The lane released the onboarding (the endpoint answers again): its held event goes now. */
export function releaseHead(state: OnboardingState, now: number): OnboardingState {
  const head = pendingHead(state);
  // Remembered even with nothing held: a turn that asked the lane before this release must not be held by its answer.
  const released = { ...state, released_at: now };
  if (!head?.held) return released;
  return {
    ...released,
    events: state.events.map((event) => (event === head ? { ...event, held: null, next_attempt_at: now } : event)),
  };
}

/**
 * When the object must wake next: the next read of the chain, the expiry, the next delivery
 * (when a webhook is configured), or, once ended with nothing left to deliver, the end of its
 * retention. Null: never.
 */
export function nextWakeAt(state: OnboardingState, delivering: boolean): number | null {
  const times: number[] = [];
  const ended = isOnboardingEnded(state.record.status);
  if (state.watch.next_check_at !== null) times.push(state.watch.next_check_at);
  if (!ended) times.push(Date.parse(state.record.expires_at));
  const head = delivering ? pendingHead(state) : null;
  if (head?.next_attempt_at != null) times.push(head.next_attempt_at);
  if (ended && head === null) times.push(Date.parse(state.record.updated_at) + RETENTION_MS);
  return times.length === 0 ? null : Math.min(...times);
}

/** True once an ended onboarding's retention has passed at `now`. */
export function retentionOver(state: OnboardingState, now: number): boolean {
  return isOnboardingEnded(state.record.status) && now >= Date.parse(state.record.updated_at) + RETENTION_MS;
}

/**
 * The events log of the host API: each event, every attempt to deliver it, and for one not yet
 * delivered what it waits for (the endpoint failing since when, or the event before it) and when
 * it is really tried next (null while it waits for either, or when no webhook is configured).
 */
export function eventsLog(state: OnboardingState, delivering: boolean): OnboardingEventsLog {
  const head = pendingHead(state);
  return {
    events: state.events.map((event) => {
      const { id, type, created_at, delivered_at, failed_at, attempts } = event;
      const pending = delivered_at === null && failed_at === null;
      const waiting_for =
        !pending || !head
          ? null
          : event !== head
            ? { event: head.id }
            : event.held
              ? { endpoint_failing_since: new Date(event.held.failing_since).toISOString() }
              : null;
      const tried = delivering && pending && waiting_for === null && event.next_attempt_at !== null;
      return {
        id,
        type,
        created_at,
        delivered_at,
        failed_at,
        next_attempt_at: tried ? new Date(event.next_attempt_at!).toISOString() : null,
        waiting_for,
        attempts,
      };
    }),
  };
}

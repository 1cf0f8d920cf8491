/**
 * The onboarding's outbox: events are delivered one at a time, in the order they were written;
 * an event that fails waits for its retry and holds back the ones after it, so a host never
 * hears `applied` before `authorized`.
 */
import { isOnboardingEnded, type OnboardingEventsLog } from "../protocol/index";
import { nextAttemptAt, RETENTION_MS } from "./schedule";
import type { DeliveryAttempt, OnboardingState, OutboxEvent } from "./state";
import { delivered } from "./webhook";

/** The event to deliver next: the oldest neither delivered nor given up. */
export function pendingHead(state: OnboardingState): OutboxEvent | null {
  return state.events.find((e) => e.delivered_at === null && e.failed_at === null) ?? null;
}

/** The state after `attempt` at delivering event `id`: delivered, retried later, or given up. */
export function recordAttempt(state: OnboardingState, id: string, attempt: DeliveryAttempt, now: number): OnboardingState {
  const events = state.events.map((event) => {
    if (event.id !== id) return event;
    const attempts = [...event.attempts, attempt];
    if (delivered(attempt)) return { ...event, attempts, delivered_at: attempt.at, next_attempt_at: null };
    const retryAt = nextAttemptAt(attempts.length, Date.parse(attempts[0]!.at), now);
    return retryAt === null ? { ...event, attempts, failed_at: attempt.at, next_attempt_at: null } : { ...event, attempts, next_attempt_at: retryAt };
  });
  return { ...state, events };
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

/** The events log of the host API: each event and every attempt to deliver it. */
export function eventsLog(state: OnboardingState): OnboardingEventsLog {
  return {
    events: state.events.map(({ id, type, created_at, delivered_at, failed_at, next_attempt_at, attempts }) => ({
      id,
      type,
      created_at,
      delivered_at,
      failed_at,
      next_attempt_at: next_attempt_at === null ? null : new Date(next_attempt_at).toISOString(),
      attempts,
    })),
  };
}

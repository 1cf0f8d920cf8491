/**
 * The onboarding's outbox: events are delivered one at a time, in the order they were written,
 * through the lane of the webhook's URL (src/webhooks/lane.ts). An event whose endpoint is failing
 * is held until the lane releases it, and holds back the ones after it, so a host never hears
 * `applied` before `authorized`. What a turn at delivering comes to (delivered, held, backed off,
 * given up) is the webhooks' delivery policy: src/webhooks/delivery-turn.ts.
 */
import { isOnboardingEnded, type OnboardingEventsLog } from "../protocol/index";
import { RETENTION_MS } from "./machine/schedule";
import type { OnboardingState, OutboxEvent } from "./state";
import type { ProbeResult } from "../webhooks/lane";
import { attemptProblem, failureOf } from "../webhooks/standard-webhook";

export type { DeliveryTurn } from "../webhooks/lane-state";

/** The event to deliver next: the oldest neither delivered nor given up. */
export function pendingHead(state: OnboardingState): OutboxEvent | null {
  return state.events.find((e) => e.delivered_at === null && e.failed_at === null) ?? null;
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

/** The host asked for given-up events again: each is owed anew, from now, in its place in the order. */
export function resendGivenUp(state: OnboardingState, now: number): OnboardingState {
  if (!state.events.some((e) => e.failed_at !== null)) return state;
  const events = state.events.map((event) =>
    event.failed_at === null ? event : { ...event, failed_at: null, first_failed_at: null, next_attempt_at: now },
  );
  return { ...state, events };
}

/**
 * What the lane's probe of event `id` came to: delivered, refused for its body alone (the endpoint answers), or failed.
 */
export function probeResult(state: OnboardingState | null, id: string): ProbeResult {
  const event = state?.events.find((e) => e.id === id);
  const last = event?.attempts.at(-1);
  if (!event || !last || event.delivered_at !== null) return { outcome: "delivered", error: null };
  return { outcome: failureOf(last) === "event" ? "refused" : "failed", error: attemptProblem(last) };
}

/**
 * When the object must wake next: the next read of the chain, the expiry, the next delivery
 * (when a webhook is configured), an owed write (the index, an `unwatch`), or, once ended with
 * nothing left to deliver, the end of its retention. Null: never.
 */
export function nextWakeAt(state: OnboardingState, delivering: boolean): number | null {
  const times: number[] = [];
  const ended = isOnboardingEnded(state.record.status);
  if (state.watch.next_check_at !== null) times.push(state.watch.next_check_at);
  if (state.watch.unfollow !== null) times.push(state.watch.unfollow.at);
  if (state.index_write !== null) times.push(state.index_write.at);
  if (!ended) times.push(Date.parse(state.record.expires_at));
  const head = delivering ? pendingHead(state) : null;
  if (head?.next_attempt_at != null) times.push(head.next_attempt_at);
  if (ended && head === null) times.push(Date.parse(state.record.updated_at) + RETENTION_MS);
  return times.length === 0 ? null : Math.min(...times);
}

/**
 * True once an ended onboarding's retention has passed at `now`: never while an event is still
 * owed to a configured webhook (it is delivered or given up first).
 */
export function retentionOver(state: OnboardingState, now: number, delivering: boolean): boolean {
  if (delivering && pendingHead(state) !== null) return false;
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
              ? {
                  endpoint_failing_since: new Date(event.held.failing_since).toISOString(),
                  endpoint_last_error: event.held.last_error,
                }
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

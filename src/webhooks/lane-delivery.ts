/**
 * One turn at delivering an onboarding's oldest event through its webhook's lane: ask the lane,
 * attempt if it admits the event, and tell it how the attempt failed: in a way every event shares
 * (the endpoint is then failing, and the event waits to be released), or refused (the lane counts
 * refusals: the event backs off on its own unless they show the endpoint refuses everything). A 2xx
 * is told only while the lane counts refusals, to end the count.
 */
import type { HostWebhook } from "../config";
import { log } from "../log";
import type { DeliveryTurn } from "./lane-state";
import { attemptDueAt } from "./delivery-turn";
import type { OutboxEvent } from "../onboardings/state";
import { attemptProblem, deliver, delivered, failureOf } from "./standard-webhook";
import type { Admission } from "./lane";

/** What an onboarding asks of its lane (the WebhookLane Durable Object). */
export interface LaneLink {
  admit(onboarding: string, attemptDue?: number | null): Promise<Admission>;
  failed(onboarding: string, error: string): Promise<Admission>;
  refused(onboarding: string, error: string): Promise<Admission>;
  answered(onboarding: string): Promise<unknown>;
}

/**
 * A turn for `event` of `onboarding`: held without an attempt while the endpoint fails, else one
 * attempt. `admitted`: the lane itself asked for it (its probe), so it is neither asked nor told.
 */
export async function deliveryTurn(
  lane: LaneLink,
  webhook: HostWebhook,
  onboarding: string,
  event: OutboxEvent,
  admitted = false,
): Promise<DeliveryTurn> {
  const askedAt = Date.now();
  const admission = admitted ? { go: true as const } : await lane.admit(onboarding, attemptDueAt(event, askedAt));
  if (!admission.go) return { askedAt, failingSince: admission.failing_since, lastError: admission.last_error };
  const attempt = await attemptLogged(webhook, onboarding, event);
  if (admitted) return { askedAt, attempt };
  if (delivered(attempt)) {
    // Not heard, the count carries on until the next 2xx that is: the event itself is delivered either way.
    if ("counting" in admission) await lane.answered(onboarding).catch(() => undefined);
    return { askedAt, attempt };
  }
  const problem = attemptProblem(attempt);
  const held =
    failureOf(attempt) === "event" ? await lane.refused(onboarding, problem) : await lane.failed(onboarding, problem);
  return held.go
    ? { askedAt, attempt }
    : { askedAt, attempt, failingSince: held.failing_since, lastError: held.last_error };
}

/** One attempt, its failure logged. */
async function attemptLogged(webhook: HostWebhook, onboarding: string, event: OutboxEvent) {
  const attempt = await deliver(webhook, event);
  if (!delivered(attempt)) {
    const outcome = "error" in attempt ? { error: attempt.error } : { status: attempt.status };
    log("warn", "webhook_attempt_failed", {
      onboarding,
      webhook_id: event.id,
      attempt: event.attempts.length + 1,
      ...outcome,
    });
  }
  return attempt;
}

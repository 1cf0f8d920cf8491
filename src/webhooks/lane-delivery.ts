/**
 * One turn at delivering an onboarding's oldest event through its webhook's lane: ask the lane,
 * attempt if it admits the event, and tell it when the attempt failed (the endpoint is then
 * failing, and the event waits to be released).
 */
import type { HostWebhook } from "../config";
import { log } from "../log";
import type { DeliveryTurn } from "../onboardings/outbox";
import type { OutboxEvent } from "../onboardings/state";
import { deliver, delivered } from "./standard-webhook";
import type { Admission } from "./lane";

/** What an onboarding asks of its lane (the WebhookLane Durable Object). */
export interface LaneLink {
  admit(onboarding: string): Promise<Admission>;
  failed(onboarding: string): Promise<Admission>;
}

/** A turn for `event` of `onboarding`: held without an attempt while the endpoint fails, else one attempt. */
export async function deliveryTurn(
  lane: LaneLink,
  webhook: HostWebhook,
  onboarding: string,
  event: OutboxEvent,
): Promise<DeliveryTurn> {
  const askedAt = Date.now();
  const admission = await lane.admit(onboarding);
  if (!admission.go) return { askedAt, failingSince: admission.failing_since };
  const attempt = await attemptLogged(webhook, onboarding, event);
  if (delivered(attempt)) return { askedAt, attempt };
  const held = await lane.failed(onboarding);
  return held.go ? { askedAt, attempt } : { askedAt, attempt, failingSince: held.failing_since };
}

/** One attempt, its failure logged. */
export async function attemptLogged(webhook: HostWebhook, onboarding: string, event: OutboxEvent) {
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

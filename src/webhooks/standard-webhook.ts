/**
 * Standard Webhooks delivery of one event (https://www.standardwebhooks.com): a POST of the
 * event's body with `webhook-id`, `webhook-timestamp` and `webhook-signature`, any 2xx within
 * HOST_WEBHOOK_TIMEOUT_MS (10 s) counting as delivered. Redirects are not followed.
 */
import type { HostWebhook } from "../config";
import type { DeliveryAttempt, OutboxEvent } from "../onboardings/state";
import { errorText } from "../log";

/** `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, keyed with the secret's bytes. */
async function webhookSignature(secret: Uint8Array, id: string, timestamp: number, body: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", secret, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(
    await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${id}.${timestamp}.${body}`)),
  );
  let binary = "";
  for (const byte of mac) binary += String.fromCharCode(byte);
  return `v1,${btoa(binary)}`;
}

/** One attempt to deliver `event`; never throws: the outcome is the attempt's record. */
export async function deliver(webhook: HostWebhook, event: Pick<OutboxEvent, "id" | "body">): Promise<DeliveryAttempt> {
  const started = Date.now();
  const at = new Date(started).toISOString();
  // Signed afresh on every attempt: receivers refuse a timestamp more than a few minutes old.
  const timestamp = Math.floor(started / 1000);
  try {
    const response = await fetch(webhook.url, {
      method: "POST",
      body: event.body,
      redirect: "manual",
      signal: AbortSignal.timeout(webhook.timeoutMs),
      headers: {
        "content-type": "application/json",
        "user-agent": "chain-edge-webhooks",
        "webhook-id": event.id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": await webhookSignature(webhook.secret, event.id, timestamp, event.body),
      },
    });
    // The receiver's body is not read beyond what closes the connection.
    await response.body?.cancel();
    return { at, status: response.status, ms: Date.now() - started };
  } catch (err) {
    const error =
      err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError")
        ? `no answer within ${webhook.timeoutMs / 1000} s`
        : `unreachable (${errorText(err)})`;
    return { at, error, ms: Date.now() - started };
  }
}

/** True for an attempt that delivered the event. */
export function delivered(attempt: DeliveryAttempt): boolean {
  return "status" in attempt && attempt.status >= 200 && attempt.status < 300;
}

/**
 * Whose failure a failed attempt is: the endpoint's (no answer, a 5xx, 408, 429, a redirect),
 * which every event shares and which holds the lane; or the event's alone (any other 4xx: the
 * receiver answered and refused this body), which backs that event off without holding anyone.
 */
export function failureOf(attempt: DeliveryAttempt): "endpoint" | "event" {
  if ("error" in attempt) return "endpoint";
  const { status } = attempt;
  return status >= 400 && status < 500 && status !== 408 && status !== 429 ? "event" : "endpoint";
}

/** A failed attempt in a few words, as the events log and the health report show the endpoint's last error. */
export function attemptProblem(attempt: DeliveryAttempt): string {
  return "error" in attempt ? attempt.error : `HTTP ${attempt.status}`;
}

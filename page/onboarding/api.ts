/**
 * The customer page's calls to this origin's onboarding-pages endpoints: read the view, hand over
 * the paired payout address, and report the transaction hash the wallet app returned. The id in
 * the path is the customer's capability; no other credential is sent.
 */
import type { FirstSession } from "../session-client.ts";
import { readFirstSessionJson } from "../settings.ts";
import { readCustomerView, type CustomerView } from "./view.ts";

/** A refusal or failure; `status` 0 means the server could not be reached. */
export class OnboardingApiError extends Error {
  override name = "OnboardingApiError";
  readonly status: number;
  /** The error's machine-readable reason, e.g. `SIGNER_MISMATCH`. */
  readonly reason: string | null;
  constructor(status: number, reason: string | null, message: string) {
    super(message);
    this.status = status;
    this.reason = reason;
  }
}

/** Where the view lives; the WebSocket push answers on the same path. */
export function onboardingPagePath(id: string): string {
  return `/api/onboarding-pages/${encodeURIComponent(id)}`;
}

async function call(path: string, init?: RequestInit): Promise<CustomerView> {
  let response: Response;
  try {
    response = await fetch(path, {
      ...init,
      headers: { accept: "application/json", ...(init?.body ? { "content-type": "application/json" } : {}) },
      cache: "no-store",
      credentials: "same-origin",
    });
  } catch {
    throw new OnboardingApiError(
      0,
      null,
      "The onboarding server could not be reached. Check your connection and try again.",
    );
  }
  const body = (await response.json().catch(() => null)) as {
    message?: unknown;
    details?: { reason?: unknown }[];
  } | null;
  if (!response.ok) {
    const reason = typeof body?.details?.[0]?.reason === "string" ? body.details[0].reason : null;
    const message =
      typeof body?.message === "string" && body.message.trim() !== ""
        ? body.message.trim()
        : `The onboarding server answered with an error (HTTP ${response.status}).`;
    throw new OnboardingApiError(response.status, reason, message);
  }
  const view = readCustomerView(body);
  if (!view)
    throw new OnboardingApiError(
      response.status,
      null,
      "The onboarding server answered with something this page cannot read.",
    );
  return view;
}

/** The customer view of onboarding `id`. */
export function fetchOnboardingView(id: string): Promise<CustomerView> {
  return call(onboardingPagePath(id));
}

/** Hands over the paired payout: a relayed confirm by its session, or the wallet app's address. */
export function submitPayout(
  id: string,
  paired: { sessionId: string } | { inAppAddress: string },
): Promise<CustomerView> {
  const body =
    "sessionId" in paired ? { session_id: paired.sessionId } : { source: "in_app", address: paired.inAppAddress };
  return call(`${onboardingPagePath(id)}/payout`, { method: "POST", body: JSON.stringify(body) });
}

/**
 * A new pairing session signed for onboarding `id` (the wallet's confirm pairs it on the server),
 * or null when the server gives none (not open, or no signing key): the page then creates one.
 */
export async function fetchPairingSession(id: string): Promise<FirstSession | null> {
  try {
    const response = await fetch(`${onboardingPagePath(id)}/session`, { method: "POST", cache: "no-store" });
    return response.ok ? readFirstSessionJson(await response.json()) : null;
  } catch {
    return null;
  }
}

/** Reports the hash of the authorization the wallet app signed; the server checks its signer. */
export function submitAuthorization(id: string, txhash: string): Promise<CustomerView> {
  return call(`${onboardingPagePath(id)}/authorization`, { method: "POST", body: JSON.stringify({ txhash }) });
}

/**
 * What the first response of a host's onboarding says when it carries no connect link: the state
 * the onboarding is in, in words, so a reader without the script (curl, a link preview, a guide's
 * shell) learns why there is nothing to pair rather than finding no link.
 */
import type { OnboardingCustomerView } from "../protocol/index";
import { escapeHtml } from "../protocol/html";

const SENTENCES: Record<string, string> = {
  applied: "This onboarding is applied: its node pays the payout already. Nothing is left to pair here.",
  cancelled: "This onboarding was cancelled. Nothing is left to pair here; ask your host for a new link.",
  expired: "This onboarding expired. Nothing is left to pair here; ask your host for a new link.",
  connected: "A wallet is already connected to this onboarding (connected); what remains needs the page's script.",
  authorized: "A wallet is already connected to this onboarding (authorized); your host applies the payout next.",
};

/** The `#page-status` markup for an onboarding whose page carries no session; null when there is none to say. */
export function onboardingStateHtml(view: Pick<OnboardingCustomerView, "status">): string | null {
  const sentence = SENTENCES[view.status];
  if (sentence === undefined) return null;
  return (
    `<p class="notice" data-testid="onboarding-state" data-status="${escapeHtml(view.status)}">` +
    `${escapeHtml(sentence)}</p>`
  );
}

/** The sentences around a hosted onboarding's steps: who asked, how it ended, the way back to the host. */
import { hostedSummarySentence, OPERATOR_WORDS } from "../../src/page/first-screen-words.ts";
import { announce, el, show } from "../dom.ts";
import { reveal } from "../step-view.ts";
import { nodePaysSentence } from "../steps/node-watch.ts";
import type { CustomerView } from "./view.ts";

/**
 * Who sent the customer here and for which node; the operator and label are the host's (as the Worker's src/page/first-
 * summary.ts).
 */
export function onboardingSummary(view: CustomerView): HTMLElement {
  return el(
    "div",
    { class: "summary", "data-testid": "onboarding-summary" },
    el("p", {}, hostedSummarySentence(view.host, view.label)),
    el("p", {}, OPERATOR_WORDS, el("span", { class: "address", "data-testid": "onboarding-operator" }, view.operator)),
  );
}

/** The plain sentence for an onboarding that ended without applying; null for the others. */
export function endedSentence(view: CustomerView): string | null {
  if (view.status === "expired")
    return (
      "This onboarding expired before it was finished. There is nothing more to do here; ask your host for a " +
      "new link."
    );
  if (view.status !== "cancelled") return null;
  if (view.problem)
    return (
      `This onboarding was stopped: ${view.problem.message.replace(/[.!?]+$/, "")}. There is nothing more to ` +
      `do here; ask your host for a new link.`
    );
  return "Your host cancelled this onboarding. There is nothing more to do here.";
}

/** For a link that names no onboarding the server knows. */
export const INVALID_LINK_SENTENCE =
  "This onboarding link is not valid. Check that you opened the whole link your host sent you, or ask your host for " +
  "a new one.";

/** "Back to <host>", a plain link to the host's return URL, when the view has both. */
export function backToHost(view: CustomerView): HTMLAnchorElement | null {
  if (!view.host || !view.return_url) return null;
  let url: URL;
  try {
    url = new URL(view.return_url);
  } catch {
    return null;
  }
  // Only a web address becomes a link: never a script or another scheme.
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  return el("a", { class: "button secondary", href: url.href, "data-testid": "back-to-host" }, `Back to ${view.host}`);
}

/**
 * The end of an applied onboarding, where the page starts and in view: what the chain verified,
 * then the way back to the host.
 */
export function showEnd(notice: HTMLElement, view: CustomerView): void {
  const sentence = nodePaysSentence(view.payout ?? "", view.node.height ?? null);
  show(notice, el("p", { class: "success", "data-testid": "outcome" }, sentence), backToHost(view));
  reveal(notice);
  announce(sentence);
}

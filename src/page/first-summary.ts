/**
 * Who asks and for which node, in the page's first response: the words that tell a customer the
 * page is genuine (the host's name, the node's label, the operator), readable before any script
 * runs. The markup is the one the page's script shows (page/onboarding/notices.ts), so nothing
 * moves when the script takes over. Every value is escaped: a label is the host's (or the link's) text.
 */
import type { AppEnv } from "../app-env";
import { isRefusal } from "../http/answer";
import type { OnboardingCustomerView } from "../protocol/index";
import { escapeHtml } from "../protocol/html";
import { hostedSummarySentence, OPERATOR_WORDS, ownNodeSentence } from "./first-screen-words";

/** The customer's view of onboarding `id`, as `GET /api/onboarding-pages/:id` answers it, or why there is none. */
export async function hostedView(
  env: AppEnv["Bindings"],
  id: string,
): Promise<OnboardingCustomerView | "unknown" | "unreadable"> {
  try {
    const answer = await env.ONBOARDINGS.get(env.ONBOARDINGS.idFromName(id)).customer();
    return isRefusal(answer) ? "unknown" : answer.body;
  } catch {
    // The script reads the view again and says what went wrong; the first screen goes on without it.
    return "unreadable";
  }
}

/** A host's onboarding: its host (the return URL's), its node's label and operator. */
export function hostedSummaryHtml(view: Pick<OnboardingCustomerView, "host" | "label" | "operator">): string {
  return summaryHtml("onboarding", hostedSummarySentence(view.host, view.label), view.operator);
}

/** A self-hoster's link: the label and operator it names. */
export function ownNodeSummaryHtml(operator: string, label: string): string {
  return summaryHtml("node", ownNodeSentence(label), operator);
}

function summaryHtml(kind: "onboarding" | "node", sentence: string, operator: string): string {
  return (
    `<div class="summary" data-testid="${kind}-summary"><p>${escapeHtml(sentence)}</p>` +
    `<p>${escapeHtml(OPERATOR_WORDS)}<span class="address" data-testid="${kind}-operator">` +
    `${escapeHtml(operator)}</span></p></div>`
  );
}

/** Whether an onboarding's node pays its payout, from the node's own record only (no schema: the pages import it). */
import type { OnboardingView } from "./onboarding.ts";

/**
 * The height at which the node's own record was read paying the onboarding's payout; null while it
 * was not (the node pays another address, or was not read yet). The only ground for saying "the node
 * pays the payout": an authorization's height says the wallet allowed it, not that the host applied it.
 */
export function nodePaysPayoutAt(o: Pick<OnboardingView, "payout" | "node">): number | null {
  const { payout_recipient: recipient, height } = o.node;
  return o.payout !== null && recipient === o.payout && height !== undefined ? height : null;
}

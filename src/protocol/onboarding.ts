/**
 * An onboarding as the host and the customer's page see it (docs/HOSTS.md): a host's request that
 * one customer's payout be paired, authorized on chain and applied by the host's node, each step
 * verified on the chain by the service itself.
 */

/**
 * `open` → `connected` (a payout is paired) → `authorized` (the chain lists the operator for the
 * payout, or none is needed) → `applied` (the node record pays the payout); `expired` and
 * `cancelled` end it early.
 */
export type OnboardingStatus = "open" | "connected" | "authorized" | "applied" | "expired" | "cancelled";

/** Where the payout came from: the wallet's relayed confirm of a pairing session, or the wallet app's bridge. */
export type PayoutSource = "relay" | "in_app";

/** The statuses after which nothing changes any more. */
export function isOnboardingEnded(status: OnboardingStatus): boolean {
  return status === "applied" || status === "expired" || status === "cancelled";
}

/** The event types a host receives, one per status change after `open`. */
export const ONBOARDING_EVENT_TYPES = [
  "onboarding.connected",
  "onboarding.authorized",
  "onboarding.applied",
  "onboarding.expired",
  "onboarding.cancelled",
] as const;
export type OnboardingEventType = (typeof ONBOARDING_EVENT_TYPES)[number];

/** The onboarding as the host API answers it and every event carries it. */
export interface OnboardingView {
  id: string;
  status: OnboardingStatus;
  operator: string;
  label: string;
  reference: string | null;
  /** The customer's page for this onboarding. */
  url: string;
  return_url: string | null;
  payout: string | null;
  payout_source: PayoutSource | null;
  /** `required` is null until a payout is paired (it is false when the payout is the operator itself). */
  authorization: { required: boolean | null; height?: number; txhash?: string };
  node: { payout_recipient?: string; height?: number };
  /** From `authorized` on: what the host's node runs to apply the payout. */
  commands?: { update_node: string; payout_recipient_line: string };
  /** Why the onboarding ended early, when the service ended it. */
  problem?: { reason: string; message: string };
  created_at: string;
  updated_at: string;
  expires_at: string;
}

/** What the customer's page sees: no host reference, no commands; `host` names where `return_url` leads. */
export type OnboardingCustomerView = Omit<OnboardingView, "reference" | "commands"> & { host: string | null };

/**
 * How an onboarding is shown: to the host (the API and every event) with its reference and, from
 * `authorized` on, the commands its node runs; to the customer's page without either.
 */
import type { Config } from "../../config";
import {
  buildPayoutRecipientLine,
  buildUpdateNodeCommand,
  chainContext,
  DEFAULT_KEY_NAME,
  isOnboardingEnded,
  type OnboardingCustomerView,
  type OnboardingView,
} from "../../protocol/index";
import type { OnboardingRecord } from "../state";

/** The customer's page of an onboarding. */
function onboardingUrl(record: Pick<OnboardingRecord, "origin" | "id">): string {
  return `${record.origin}/?onboarding=${record.id}`;
}

/** The onboarding as the host sees it. */
export function hostView(record: OnboardingRecord, config: Config): OnboardingView {
  const { origin: _origin, ...fields } = record;
  const view: OnboardingView = { ...fields, url: onboardingUrl(record) };
  if ((record.status === "authorized" || record.status === "applied") && record.payout !== null) {
    // The same builders as the page's step 3, with this deployment's node settings: what a host's agent runs.
    const ctx = chainContext(config);
    const pair = { operator: record.operator, payoutRecipient: record.payout };
    const target = {
      keyName: DEFAULT_KEY_NAME,
      home: config.nodeHome,
      keyringBackend: config.nodeKeyringBackend,
      container: config.nodeContainer,
    };
    view.commands = {
      update_node: buildUpdateNodeCommand(ctx, { ...pair, ...target }),
      payout_recipient_line: buildPayoutRecipientLine(ctx, pair),
    };
  }
  return view;
}

/** The onboarding as its customer's page sees it. */
export function customerView(record: OnboardingRecord): OnboardingCustomerView {
  const { origin: _origin, reference: _reference, ...fields } = record;
  return {
    ...fields,
    url: onboardingUrl(record),
    host: record.return_url === null ? null : new URL(record.return_url).host,
  };
}

/** What the customer's page is pushed: its view, and once the onboarding has ended the status it is closed with. */
export function pageView(record: OnboardingRecord): { message: string; final: string | null } {
  return {
    message: JSON.stringify(customerView(record)),
    final: isOnboardingEnded(record.status) ? record.status : null,
  };
}

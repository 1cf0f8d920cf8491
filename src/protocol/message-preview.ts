/** One plain sentence per message, for the wallet's confirmation screen and the page. */
import type { ChainContext } from "./chain-context.ts";
import type { TxMessage } from "./messages/tx-message.ts";
import { typeUrls } from "./messages/type-urls.ts";

type Fields = Record<string, unknown>;

/** A human sentence for one message of table G; the type URL for anything else. */
export function describeMessage(ctx: ChainContext, message: TxMessage): string {
  const urls = typeUrls(ctx);
  const v = message.value as Fields;
  switch (message.typeUrl) {
    case urls.authorizeOperator:
      return `Allow node operator ${v.operator} to pay its rewards to ${v.payoutRecipient}${v.label ? ` (label "${v.label}")` : ""}`;
    case urls.revokeOperatorAuthorization:
      return `Stop node operator ${v.operator} from paying its rewards to ${v.payoutRecipient}`;
    case urls.updateNode:
      return `Set the payout recipient of node operator ${v.operator} to ${v.payoutRecipient}`;
    case urls.send:
      return `Send ${coins(v.amount)} from ${v.fromAddress} to ${v.toAddress}`;
    case urls.delegate:
      return `Delegate ${coins([v.amount])} from ${v.delegatorAddress} to validator ${v.validatorAddress}`;
    case urls.undelegate:
      return `Undelegate ${coins([v.amount])} of ${v.delegatorAddress} from validator ${v.validatorAddress}`;
    default:
      return message.typeUrl;
  }
}

function coins(list: unknown): string {
  if (!Array.isArray(list)) return "?";
  return list.map((c: { amount?: unknown; denom?: unknown }) => `${String(c?.amount)} ${String(c?.denom)}`).join(", ");
}

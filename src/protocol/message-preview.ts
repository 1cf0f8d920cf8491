/**
 * What the wallet's confirmation screen shows for a message: one plain sentence, and the
 * structured preview entry of the sign request (`{type, from?, to?, amount?, denom?, summary}`).
 */
import type { ChainContext } from "./chain-context.ts";
import type { TxMessage } from "./messages/tx-message.ts";
import { typeUrls } from "./messages/type-urls.ts";

type Fields = Record<string, unknown>;

/** One entry of a sign request's `preview.messages`. */
export interface PreviewMessage {
  /** The message's short name, e.g. `MsgAuthorizeOperator`. */
  readonly type: string;
  /** The signing account. */
  readonly from?: string;
  /** The other party: recipient, validator, or the operator being authorized. */
  readonly to?: string;
  readonly amount?: string;
  readonly denom?: string;
  readonly summary?: string;
}

/** A human sentence for one message of table G; the type URL for anything else. */
export function describeMessage(ctx: ChainContext, message: TxMessage): string {
  const urls = typeUrls(ctx);
  const v = message.value as Fields;
  switch (message.typeUrl) {
    case urls.authorizeOperator:
      return (
        `Allow node operator ${v.operator} to pay its rewards to ` +
        `${v.payoutRecipient}${v.label ? ` (label "${v.label}")` : ""}`
      );
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

/** The preview entry of one message: its short name, the parties and amount where they apply, and its sentence. */
export function previewMessage(ctx: ChainContext, message: TxMessage): PreviewMessage {
  const urls = typeUrls(ctx);
  const v = message.value as Fields;
  const type = message.typeUrl.slice(message.typeUrl.lastIndexOf(".") + 1) || message.typeUrl;
  const summary = describeMessage(ctx, message);
  switch (message.typeUrl) {
    case urls.authorizeOperator:
    case urls.revokeOperatorAuthorization:
      return entry({ type, from: v.payoutRecipient, to: v.operator, summary });
    case urls.updateNode:
      return entry({ type, from: v.operator, to: v.payoutRecipient, summary });
    case urls.send: {
      const only = Array.isArray(v.amount) && v.amount.length === 1 ? (v.amount[0] as Fields) : {};
      return entry({ type, from: v.fromAddress, to: v.toAddress, amount: only.amount, denom: only.denom, summary });
    }
    case urls.delegate:
    case urls.undelegate: {
      const coin = (v.amount ?? {}) as Fields;
      return entry({
        type,
        from: v.delegatorAddress,
        to: v.validatorAddress,
        amount: coin.amount,
        denom: coin.denom,
        summary,
      });
    }
    default:
      return { type, summary };
  }
}

/** Keeps only the string fields, so an absent party is absent rather than `undefined` or `"?"`. */
function entry(fields: Fields & { type: string; summary: string }): PreviewMessage {
  return Object.fromEntries(
    Object.entries(fields).filter(([, value]) => typeof value === "string" && value !== ""),
  ) as unknown as PreviewMessage;
}

function coins(list: unknown): string {
  if (!Array.isArray(list)) return "?";
  return list.map((c: { amount?: unknown; denom?: unknown }) => `${String(c?.amount)} ${String(c?.denom)}`).join(", ");
}

/**
 * Step 4, optional: sweep the operator's leftover balance back to the payout recipient with
 * `tx bank send`, keeping a reserve on the operator. The operator pays the send's fee from that
 * reserve (feegrant cannot pay a MsgSend) and keeps the rest for the node's own proofs.
 */
import * as z from "zod/mini";
import type { ChainContext } from "../chain-context.ts";
import { buildSend, type SendValue } from "../messages/bank.ts";
import { MessageError } from "../messages/errors.ts";
import { amountSchema, parseFields } from "../messages/fields.ts";
import type { TxMessage } from "../messages/tx-message.ts";
import { nodeInvocation, signingFlags, type NodeTarget } from "./node-commands.ts";
import { checkKeyName, commandLine } from "./shell.ts";

/** The reserve the network's hosting guide suggests: about 100 of the smallest unit. */
export const DEFAULT_SWEEP_RESERVE = "100";

/** The sweep as a message (for an application to sign) and as a node command (to paste). */
export interface Sweep {
  /** What is sent: balance minus the reserve, in the smallest unit. */
  amount: string;
  message: TxMessage<SendValue>;
  command: string;
}

/**
 * The sweep of `balance` minus `reserve` (both integer strings of the native denom's smallest
 * unit) from the operator to the payout recipient:
 * `[docker exec <container>] <binary> tx bank send <key> <payout> <amount><denom> --home …
 * --keyring-backend … --chain-id … --sign-mode pq-direct -y`. Refused when nothing would be left
 * to send.
 */
export function buildSweep(
  ctx: ChainContext,
  input: { operator: string; payoutRecipient: string; balance: string; reserve: string } & NodeTarget,
): Sweep {
  const balance = amountField("balance", input.balance, "INVALID_BALANCE");
  const reserve = amountField("reserve", input.reserve, "INVALID_RESERVE");
  if (balance <= reserve) {
    throw new MessageError(
      "NOTHING_TO_SWEEP",
      "The balance does not exceed the reserve; there is nothing to sweep",
      "balance",
    );
  }
  const amount = (balance - reserve).toString();
  const message = sendOf(ctx, input.operator, input.payoutRecipient, amount);
  const args = [
    "tx",
    "bank",
    "send",
    checkKeyName(input.keyName),
    message.value.toAddress,
    `${amount}${ctx.nativeDenom}`,
    ...signingFlags(ctx, input),
  ];
  return { amount, message, command: commandLine(nodeInvocation(ctx, input, args)) };
}

/** An amount input as a BigInt, or a MessageError with `reason` that names `field`. */
function amountField(field: string, value: unknown, reason: string): bigint {
  return BigInt(parseFields(z.object({ [field]: amountSchema() }), { [field]: value }, reason)[field]!);
}

/** The MsgSend, with a refusal naming the sweep's own field (`operator`, `payoutRecipient`) rather than MsgSend's. */
function sendOf(ctx: ChainContext, operator: string, payoutRecipient: string, amount: string): TxMessage<SendValue> {
  try {
    return buildSend(ctx, { fromAddress: operator, toAddress: payoutRecipient, amount });
  } catch (error) {
    if (!(error instanceof MessageError) || (error.field !== "fromAddress" && error.field !== "toAddress")) throw error;
    const field = error.field === "fromAddress" ? "operator" : "payoutRecipient";
    throw new MessageError(error.reason, error.message.replace(error.field, field), field);
  }
}

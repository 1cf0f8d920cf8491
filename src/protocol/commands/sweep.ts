/**
 * Step 4, optional: sweep the operator's leftover balance back to the payout recipient, keeping a
 * reserve that pays the fee. The operator pays that fee itself: feegrant cannot pay a MsgSend.
 */
import type { ChainContext } from "../chain-context.ts";
import { buildSend, type SendValue } from "../messages/bank.ts";
import { MessageError } from "../messages/errors.ts";
import { amountSchema, parseFields } from "../messages/fields.ts";
import type { TxMessage } from "../messages/tx-message.ts";
import { nodeInvocation, type NodeTarget } from "./node-commands.ts";
import { checkKeyName, commandLine } from "./shell.ts";

/** A fee reserve that covers one bank send at devnet gas prices; the page lets the user change it. */
export const DEFAULT_FEE_RESERVE = "20000";

/** The sweep as a message (for an application to sign) and as a node command (to paste). */
export interface Sweep {
  /** What is sent: balance minus the fee reserve, in the smallest unit. */
  amount: string;
  message: TxMessage<SendValue>;
  command: string;
}

/**
 * The sweep of `balance` minus `feeReserve` (both integer strings of the native denom's smallest
 * unit) from the operator to the payout recipient, paying `feeReserve` as the fee
 * (`--fees <reserve><denom>`). Refused when nothing would be left to send.
 */
export function buildSweep(
  ctx: ChainContext,
  input: { operator: string; payoutRecipient: string; balance: string; feeReserve: string } & NodeTarget,
): Sweep {
  const balance = BigInt(parseFields(amountSchema, input.balance, "INVALID_BALANCE"));
  const reserve = BigInt(parseFields(amountSchema, input.feeReserve, "INVALID_FEE_RESERVE"));
  if (balance <= reserve) {
    throw new MessageError("NOTHING_TO_SWEEP", "The balance does not exceed the fee reserve; there is nothing to sweep", "balance");
  }
  const amount = (balance - reserve).toString();
  const message = buildSend(ctx, { fromAddress: input.operator, toAddress: input.payoutRecipient, amount });
  const args = [
    "tx", "bank", "send", checkKeyName(input.keyName), message.value.toAddress, `${amount}${ctx.nativeDenom}`,
    "--fees", `${reserve}${ctx.nativeDenom}`, "--chain-id", ctx.chainId, "--sign-mode", "pq-direct", "-y",
  ];
  return { amount, message, command: commandLine(nodeInvocation(ctx, input, args)) };
}

/** MsgSend of the bank module, signed by `fromAddress`. Feegrant cannot pay its fee. */
import * as z from "zod/mini";
import type { ChainContext } from "../chain-context.ts";
import { MessageError } from "./errors.ts";
import { addressSchema, amountSchema, parseFields } from "./fields.ts";
import type { Coin, TxMessage } from "./tx-message.ts";
import { typeUrls } from "./type-urls.ts";

/** Value of `/cosmos.bank.v1beta1.MsgSend`. */
export interface SendValue {
  readonly fromAddress: string;
  readonly toAddress: string;
  readonly amount: readonly Coin[];
}

/**
 * MsgSend of `amount` (an integer string of the native denom's smallest unit) from `fromAddress`
 * to `toAddress`. Sending to oneself is refused: it would only burn a fee.
 */
export function buildSend(
  ctx: ChainContext,
  input: { fromAddress: string; toAddress: string; amount: string },
): TxMessage<SendValue> {
  const schema = z.strictObject({
    fromAddress: addressSchema(ctx.bech32Prefix),
    toAddress: addressSchema(ctx.bech32Prefix),
    amount: amountSchema(),
  });
  const { fromAddress, toAddress, amount } = parseFields(schema, input);
  if (fromAddress === toAddress) throw new MessageError("SEND_TO_SELF", "toAddress is the sender itself", "toAddress");
  return {
    typeUrl: typeUrls(ctx).send,
    value: { fromAddress, toAddress, amount: [{ denom: ctx.nativeDenom, amount }] },
  };
}

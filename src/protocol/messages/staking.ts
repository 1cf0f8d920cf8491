/** MsgDelegate and MsgUndelegate of the staking module, signed by `delegatorAddress`. */
import * as z from "zod/mini";
import type { ChainContext } from "../chain-context.ts";
import { addressSchema, amountSchema, parseFields } from "./fields.ts";
import type { Coin, TxMessage } from "./tx-message.ts";
import { typeUrls } from "./type-urls.ts";

/** Value of `/cosmos.staking.v1beta1.MsgDelegate` and `MsgUndelegate`. */
interface DelegationValue {
  readonly delegatorAddress: string;
  readonly validatorAddress: string;
  readonly amount: Coin;
}

type DelegationInput = { delegatorAddress: string; validatorAddress: string; amount: string };

/** MsgDelegate of `amount` (smallest unit of the native denom) to a `<prefix>valoper` validator. */
export function buildDelegate(ctx: ChainContext, input: DelegationInput): TxMessage<DelegationValue> {
  return { typeUrl: typeUrls(ctx).delegate, value: delegation(ctx, input) };
}

/** MsgUndelegate of `amount` (smallest unit of the native denom) from a `<prefix>valoper` validator. */
export function buildUndelegate(ctx: ChainContext, input: DelegationInput): TxMessage<DelegationValue> {
  return { typeUrl: typeUrls(ctx).undelegate, value: delegation(ctx, input) };
}

function delegation(ctx: ChainContext, input: DelegationInput): DelegationValue {
  const schema = z.strictObject({
    delegatorAddress: addressSchema(ctx.bech32Prefix),
    validatorAddress: addressSchema(`${ctx.bech32Prefix}valoper`),
    amount: amountSchema(),
  });
  const { delegatorAddress, validatorAddress, amount } = parseFields(schema, input);
  return { delegatorAddress, validatorAddress, amount: { denom: ctx.nativeDenom, amount } };
}

/**
 * Messages of the incentives module (table G). MsgAuthorizeOperator and
 * MsgRevokeOperatorAuthorization are signed by the payout key (the customer's wallet);
 * MsgUpdateNode by the operator key on the node machine.
 */
import * as z from "zod/mini";
import type { ChainContext } from "../chain-context.ts";
import { SelfAuthorizationError } from "./errors.ts";
import { addressSchema, labelSchema, parseFields } from "./fields.ts";
import type { TxMessage } from "./tx-message.ts";
import { typeUrls } from "./type-urls.ts";

/** Value of MsgAuthorizeOperator: the payout recipient lets `operator` name it as its payout. */
export interface AuthorizeOperatorValue {
  readonly payoutRecipient: string;
  readonly operator: string;
  readonly label: string;
}

/** Value of MsgRevokeOperatorAuthorization (field names assumed to mirror the authorize message). */
interface RevokeOperatorAuthorizationValue {
  readonly payoutRecipient: string;
  readonly operator: string;
}

/** Value of MsgUpdateNode as `tx incentives update-node` sends it: the operator sets its payout recipient. */
export interface UpdateNodeValue {
  readonly operator: string;
  readonly payoutRecipient: string;
}

const pairSchema = (ctx: ChainContext) =>
  z.strictObject({ payoutRecipient: addressSchema(ctx.bech32Prefix), operator: addressSchema(ctx.bech32Prefix) });

/**
 * MsgAuthorizeOperator `{payoutRecipient, operator, label}`, signed by the payout key.
 * Throws SelfAuthorizationError when both addresses are the same (the chain's
 * ErrSelfAuthorization), before anything reaches a wallet. `label` defaults to "".
 */
export function buildAuthorizeOperator(
  ctx: ChainContext,
  input: { payoutRecipient: string; operator: string; label?: string },
): TxMessage<AuthorizeOperatorValue> {
  const schema = z.strictObject({ ...pairSchema(ctx).shape, label: z.optional(labelSchema()) });
  const { payoutRecipient, operator, label = "" } = parseFields(schema, input);
  if (payoutRecipient === operator) throw new SelfAuthorizationError();
  return { typeUrl: typeUrls(ctx).authorizeOperator, value: { payoutRecipient, operator, label } };
}

/** MsgRevokeOperatorAuthorization `{payoutRecipient, operator}`, signed by the payout key. */
export function buildRevokeOperatorAuthorization(
  ctx: ChainContext,
  input: { payoutRecipient: string; operator: string },
): TxMessage<RevokeOperatorAuthorizationValue> {
  const { payoutRecipient, operator } = parseFields(pairSchema(ctx), input);
  if (payoutRecipient === operator) throw new SelfAuthorizationError();
  return { typeUrl: typeUrls(ctx).revokeOperatorAuthorization, value: { payoutRecipient, operator } };
}

/** MsgUpdateNode `{operator, payoutRecipient}`, signed by the operator key. */
export function buildUpdateNode(
  ctx: ChainContext,
  input: { operator: string; payoutRecipient: string },
): TxMessage<UpdateNodeValue> {
  const { operator, payoutRecipient } = parseFields(pairSchema(ctx), input);
  return { typeUrl: typeUrls(ctx).updateNode, value: { operator, payoutRecipient } };
}

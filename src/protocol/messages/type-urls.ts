/** Type URLs of table G: the network's own modules under its namespace, the Cosmos ones fixed. */
import type { ChainContext } from "../chain-context.ts";

/** Every transaction message the onboarding and its applications build. */
export interface TypeUrls {
  authorizeOperator: string;
  revokeOperatorAuthorization: string;
  updateNode: string;
  send: string;
  delegate: string;
  undelegate: string;
}

/** The type URLs for one network: `/<namespace>.incentives.v1.MsgAuthorizeOperator` and the rest. */
export function typeUrls(ctx: Pick<ChainContext, "namespace">): TypeUrls {
  const incentives = `/${ctx.namespace}.incentives.v1`;
  return {
    authorizeOperator: `${incentives}.MsgAuthorizeOperator`,
    revokeOperatorAuthorization: `${incentives}.MsgRevokeOperatorAuthorization`,
    updateNode: `${incentives}.MsgUpdateNode`,
    send: "/cosmos.bank.v1beta1.MsgSend",
    delegate: "/cosmos.staking.v1beta1.MsgDelegate",
    undelegate: "/cosmos.staking.v1beta1.MsgUndelegate",
  };
}

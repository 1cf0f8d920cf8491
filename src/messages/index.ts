/**
 * Transaction messages of the network, its sign requests, wallet links and node commands: the
 * DOM-free builders the onboarding page uses and applications may import.
 */
export { chainContext, chainContextFromSettings, type ChainContext } from "./context.ts";
export { AUTHORIZATION_EXISTS_TEXT, isAuthorizationExists, MessageError, SelfAuthorizationError } from "./errors.ts";
export { listsOperator, operatorAuthorizationsPath } from "./authorizations.ts";
export { buildAuthorizeOperator, buildRevokeOperatorAuthorization, buildUpdateNode } from "./incentives.ts";
export { buildSend } from "./bank.ts";
export { buildDelegate, buildUndelegate } from "./staking.ts";
export { requireSigner, signerOf, type SignerRole } from "./signers.ts";
export type { Coin, TxMessage } from "./tx-message.ts";
export { typeUrls } from "./type-urls.ts";
export { buildConnectPayload, type ConnectPayload } from "../signing/connect-payload.ts";
export { connectDeepLink, parseDeepLink, signDeepLink } from "../signing/deep-links.ts";
export { mintSessionId, mintSignRequestId } from "../signing/ids.ts";
export { buildSignRequest, signRequestSchema, type SignRequest } from "../signing/sign-request.ts";
export { planOperatorAuthorization, type AuthorizationStep } from "../signing/authorize-request.ts";
export { buildPayoutRecipientLine, buildUpdateNodeCommand } from "../commands/node-commands.ts";
export { buildSweep } from "../commands/sweep.ts";

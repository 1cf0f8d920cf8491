/**
 * The wallet protocol and chain vocabulary that the Worker, the onboarding page, the wallet
 * simulator and the tests share: ids, the session row, connect payloads and sign requests, wallet
 * links, typed transaction messages and node commands. DOM-free and runtime-neutral, so it runs in
 * workerd, the browser and Node alike. Applications import builders from here, never from the
 * files behind it.
 */
export { chainContext, type ChainContext } from "./chain-context.ts";
export { accountAddressProblem, accountAddressSchema, isAccountAddress } from "./address.ts";
export {
  mintOnboardingId,
  mintSessionId,
  ONBOARDING_ID_PATTERN,
  SESSION_ID_PATTERN,
} from "./ids.ts";
export {
  isOnboardingEnded,
  ONBOARDING_EVENT_TYPES,
  onboardingFeedEventSchema,
  onboardingStatusSchema,
  onboardingViewSchema,
  type OnboardingFeedEvent,
  type OnboardingEventType,
  type OnboardingStatus,
  type OnboardingView,
  type PayoutSource,
} from "./onboarding.ts";
export type { OnboardingCustomerView, OnboardingEventsLog } from "./onboarding-answers.ts";
export { nodePaysPayoutAt } from "./node-pays.ts";
export { describeFirstIssue, issueProblem } from "./schema-issues.ts";
export { freeText } from "./text.ts";
export type { SessionRow, SessionStatus } from "./session-row.ts";
export {
  ACCOUNT_LABEL_MAX,
  normalizeWalletProof,
  PUBKEY_MAX_BYTES,
  PUBKEY_MIN_BYTES,
  sameProof,
  type ProofResult,
  type WalletProof,
} from "./wallet-proof.ts";
export {
  buildConnectPayload,
  CONNECT_TTL_MS,
  onboardingQuery,
  type ConnectPayload,
} from "./connect-payload.ts";
export {
  connectDeepLink,
  decodeWalletPayload,
  encodeWalletPayload,
  parseDeepLink,
  signDeepLink,
} from "./deep-links.ts";
export {
  buildSignRequest,
  chooseQrContent,
  MAX_QR_CHARS,
  signQrContent,
  type SignRequest,
} from "./sign-request.ts";
export {
  BRIDGE_WAIT_MS,
  deepLinkMessage,
  readConnectAnswer,
  readSignAnswer,
  walletAppGlobals,
  WEB_VIEW_GLOBAL,
  type WalletAppGlobals,
} from "./wallet-app.ts";
export { planOperatorAuthorization, type AuthorizationStep } from "./authorization-step.ts";
export {
  isAuthorizationExists,
  MessageError,
  SelfAuthorizationError,
} from "./messages/errors.ts";
export { listedOperators, listsOperator, operatorAuthorizationsPath } from "./messages/authorizations.ts";
export { ChainAnswerError, chainJson, parseChainAnswer } from "./chain-answer.ts";
export { canonicalTxHash, readTxAnswer, txLookupPath, type TxOutcome } from "./messages/tx-outcome.ts";
export { buildAuthorizeOperator, buildRevokeOperatorAuthorization, buildUpdateNode } from "./messages/incentives.ts";
export { buildSend } from "./messages/bank.ts";
export { buildDelegate, buildUndelegate } from "./messages/staking.ts";
export { signerOf } from "./messages/signers.ts";
export { typeUrls } from "./messages/type-urls.ts";
export {
  buildPayoutRecipientLine,
  buildUpdateNodeCommand,
  DEFAULT_KEY_NAME,
  type NodeTarget,
} from "./commands/node-commands.ts";
export { buildSweep, DEFAULT_SWEEP_RESERVE } from "./commands/sweep.ts";
export {
  checkContainerName,
  checkHome,
  checkKeyName,
  checkKeyringBackend,
  commandLine,
  KEYRING_BACKENDS,
  shellWord,
} from "./commands/shell.ts";

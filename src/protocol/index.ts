/**
 * The wallet protocol and chain vocabulary that the Worker, the onboarding page, the wallet
 * simulator and the tests share: ids, the session row, connect payloads and sign requests, wallet
 * links, typed transaction messages and node commands. DOM-free and runtime-neutral, so it runs in
 * workerd, the browser and Node alike. Applications import builders from here, never from the
 * files behind it.
 */
export { chainContext, chainContextFromSettings, type ChainContext } from "./chain-context.ts";
export { accountAddressProblem, accountAddressSchema, isAccountAddress, BECH32_MAX_LENGTH } from "./address.ts";
export {
  mintOnboardingId,
  mintSessionId,
  mintSignRequestId,
  ONBOARDING_ID_PATTERN,
  SESSION_ID_PATTERN,
  SIGN_REQUEST_ID_PATTERN,
} from "./ids.ts";
export {
  isOnboardingEnded,
  ONBOARDING_EVENT_TYPES,
  onboardingCustomerViewSchema,
  onboardingEventsLogSchema,
  onboardingFeedEventSchema,
  onboardingStatusSchema,
  onboardingViewSchema,
  pageSchema,
  webhookRetrySchema,
  payoutSourceSchema,
  type OnboardingCustomerView,
  type OnboardingEventsLog,
  type OnboardingFeedEvent,
  type WebhookRetry,
  type OnboardingEventType,
  type OnboardingStatus,
  type OnboardingView,
  type PayoutSource,
} from "./onboarding.ts";
export { describeFirstIssue, describeIssue, issueProblem } from "./schema-issues.ts";
export { CONTROL_CHARS, NO_CONTROL_CHARS } from "./text.ts";
export {
  isSettled,
  sessionRowSchema,
  sessionStatusSchema,
  type SessionOrigin,
  type SessionRow,
  type SessionStatus,
} from "./session-row.ts";
export {
  ACCOUNT_LABEL_MAX,
  normalizeWalletProof,
  PUBKEY_MAX_BYTES,
  PUBKEY_MIN_BYTES,
  sameProof,
  type ProofProblem,
  type ProofResult,
  type WalletProof,
} from "./wallet-proof.ts";
export {
  buildConnectPayload,
  CONNECT_TTL_MS,
  connectPayloadSchema,
  onboardingQuery,
  type ConnectPayload,
  type ReadConnectPayload,
} from "./connect-payload.ts";
export {
  connectDeepLink,
  decodeWalletPayload,
  encodeWalletPayload,
  parseDeepLink,
  signDeepLink,
  type DeepLinkAction,
} from "./deep-links.ts";
export {
  buildSignRequest,
  chooseQrContent,
  MAX_QR_CHARS,
  signQrContent,
  signRequestSchema,
  SIGN_REQUEST_TTL_MS,
  type PreviewFee,
  type SignRequest,
} from "./sign-request.ts";
export { describeMessage, previewMessage, type PreviewMessage } from "./message-preview.ts";
export {
  BRIDGE_WAIT_MS,
  deepLinkMessage,
  readConnectAnswer,
  readSignAnswer,
  walletAppGlobals,
  WEB_VIEW_GLOBAL,
  type ConnectAnswer,
  type WalletAppGlobals,
} from "./wallet-app.ts";
export { planOperatorAuthorization, type AuthorizationStep } from "./authorization-step.ts";
export {
  AUTHORIZATION_EXISTS_TEXT,
  isAuthorizationExists,
  MessageError,
  SelfAuthorizationError,
} from "./messages/errors.ts";
export { listedOperators, listsOperator, operatorAuthorizationsPath } from "./messages/authorizations.ts";
export { ChainAnswerError, parseChainAnswer } from "./chain-answer.ts";
export { canonicalTxHash, readTxAnswer, TX_HASH_PATTERN, txLookupPath, type TxOutcome } from "./messages/tx-outcome.ts";
export { buildAuthorizeOperator, buildRevokeOperatorAuthorization, buildUpdateNode } from "./messages/incentives.ts";
export { buildSend, type SendValue } from "./messages/bank.ts";
export { buildDelegate, buildUndelegate } from "./messages/staking.ts";
export { requireSigner, signerOf, type SignerRole } from "./messages/signers.ts";
export type { Coin, TxMessage } from "./messages/tx-message.ts";
export { typeUrls, type TypeUrls } from "./messages/type-urls.ts";
export {
  buildPayoutRecipientLine,
  buildUpdateNodeCommand,
  DEFAULT_KEY_NAME,
  type NodeTarget,
} from "./commands/node-commands.ts";
export { buildSweep, DEFAULT_SWEEP_RESERVE, type Sweep } from "./commands/sweep.ts";
export {
  checkContainerName,
  checkHome,
  checkKeyName,
  checkKeyringBackend,
  commandLine,
  KEYRING_BACKENDS,
  shellWord,
  type KeyringBackend,
} from "./commands/shell.ts";

/**
 * What an onboarding refuses, as values: each with its HTTP status, gRPC code and reason, and
 * named by its reason (a function where the message names what was refused).
 */
import { GrpcCode, type ErrorSpec } from "../errors";

export const ONBOARDING_NOT_FOUND: ErrorSpec = {
  status: 404,
  code: GrpcCode.NOT_FOUND,
  reason: "ONBOARDING_NOT_FOUND",
  message: "No such onboarding",
};
export const EVENT_NOT_FOUND: ErrorSpec = {
  status: 404,
  code: GrpcCode.NOT_FOUND,
  reason: "EVENT_NOT_FOUND",
  message: "This onboarding has no event with that id",
};
export const ONBOARDING_EXISTS: ErrorSpec = {
  status: 409,
  code: GrpcCode.ALREADY_EXISTS,
  reason: "ONBOARDING_EXISTS",
  message: "An onboarding with this id already exists",
};
export const ONBOARDING_CANCELLED: ErrorSpec = {
  status: 410,
  code: GrpcCode.FAILED_PRECONDITION,
  reason: "ONBOARDING_CANCELLED",
  message: "This onboarding was cancelled",
};
export const ONBOARDING_EXPIRED: ErrorSpec = {
  status: 410,
  code: GrpcCode.FAILED_PRECONDITION,
  reason: "ONBOARDING_EXPIRED",
  message: "This onboarding expired before the node applied the payout",
};
export const ONBOARDING_APPLIED: ErrorSpec = {
  status: 409,
  code: GrpcCode.FAILED_PRECONDITION,
  reason: "ONBOARDING_APPLIED",
  message: "The node already pays this onboarding's payout; it can no longer change or be cancelled",
};
export const ONBOARDING_ALREADY_PAIRED: ErrorSpec = {
  status: 409,
  code: GrpcCode.ABORTED,
  reason: "ONBOARDING_ALREADY_PAIRED",
  message: "This onboarding is already paired with another payout address",
};
export const ONBOARDING_NOT_PAIRED: ErrorSpec = {
  status: 409,
  code: GrpcCode.FAILED_PRECONDITION,
  reason: "ONBOARDING_NOT_PAIRED",
  message: "Connect the payout wallet first",
};
export const SESSION_OF_ANOTHER_ONBOARDING: ErrorSpec = {
  status: 403,
  code: GrpcCode.PERMISSION_DENIED,
  reason: "SESSION_OF_ANOTHER_ONBOARDING",
  message: "That pairing session was issued by another onboarding's page; pair from this onboarding's own page",
};
export const PAIRING_CLOSED = (status: string): ErrorSpec => ({
  status: 409,
  code: GrpcCode.FAILED_PRECONDITION,
  reason: "PAIRING_CLOSED",
  message: `This onboarding no longer waits for a wallet (it is ${status})`,
});
export const SIGNED_SESSIONS_OFF: ErrorSpec = {
  status: 409,
  code: GrpcCode.FAILED_PRECONDITION,
  reason: "SIGNED_SESSIONS_OFF",
  message: "This deployment signs no sessions (SESSION_SIGNING_KEY is not set): create one as any client does",
};
export const SIGNER_MISMATCH = (signer: string, payout: string): ErrorSpec => ({
  status: 409,
  code: GrpcCode.ABORTED,
  reason: "SIGNER_MISMATCH",
  message:
    `The authorization was signed by ${signer}, not by the paired payout address ${payout}. The onboarding ` +
    `is stopped: ask your host for a new link and check the address in your wallet before you sign.`,
});
export const NOT_AN_AUTHORIZATION = (operator: string): ErrorSpec => ({
  status: 400,
  code: GrpcCode.INVALID_ARGUMENT,
  reason: "NOT_AN_AUTHORIZATION",
  message: `That transaction does not authorize the operator ${operator}`,
});

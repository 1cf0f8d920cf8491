/** What a PairingSession refuses, as values: each with its HTTP status, gRPC code and reason, answered as they are. */
import { GrpcCode, type ErrorSpec } from "../errors";

export const SESSION_NOT_FOUND: ErrorSpec = {
  status: 404,
  code: GrpcCode.NOT_FOUND,
  reason: "SESSION_NOT_FOUND",
  message: "No such session (never created, or deleted after it settled)",
};
export const SESSION_EXISTS = (id: string): ErrorSpec => ({
  status: 409,
  code: GrpcCode.ALREADY_EXISTS,
  reason: "SESSION_EXISTS",
  message: `Session ${id} already exists`,
});
export const SESSION_EXPIRED: ErrorSpec = {
  status: 410,
  code: GrpcCode.FAILED_PRECONDITION,
  reason: "SESSION_EXPIRED",
  message: "The session expired before the wallet confirmed it; start a new one",
};
export const SESSION_CANCELLED: ErrorSpec = {
  status: 410,
  code: GrpcCode.FAILED_PRECONDITION,
  reason: "SESSION_CANCELLED",
  message: "The session was cancelled; start a new one",
};
/** A second confirm with another proof, or a cancel after the confirm: the first confirm wins, for good. */
export const SESSION_ALREADY_CONNECTED: ErrorSpec = {
  status: 409,
  code: GrpcCode.ABORTED,
  reason: "SESSION_ALREADY_CONNECTED",
  message: "The session is already connected to a wallet: the first confirm wins, and it can no longer be cancelled",
};
/** A relayed payout read from a session whose wallet has not confirmed yet. */
export const SESSION_NOT_CONNECTED: ErrorSpec = {
  status: 409,
  code: GrpcCode.FAILED_PRECONDITION,
  reason: "SESSION_NOT_CONNECTED",
  message: "That pairing session has no wallet confirm yet",
};

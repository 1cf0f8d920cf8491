/**
 * Refusals of the message and command builders, as values a caller can branch on. They are
 * raised before anything is signed; the chain's own errors of the same name are the last defence.
 */

/** A builder refused its input; `reason` is machine-readable, `field` names the offending input. */
export class MessageError extends Error {
  override name = "MessageError";
  readonly reason: string;
  readonly field?: string;
  constructor(reason: string, message: string, field?: string) {
    super(message);
    this.reason = reason;
    this.field = field;
  }
}

/**
 * ErrSelfAuthorization: the payout recipient equals the operator, so no authorization is needed.
 * The onboarding flow skips the authorize step instead of asking the wallet to sign a failing message.
 */
export class SelfAuthorizationError extends MessageError {
  override name = "SelfAuthorizationError";
  constructor() {
    super(
      "ErrSelfAuthorization",
      "The payout recipient is the operator itself; an operator needs no authorization to pay itself",
      "operator",
    );
  }
}

/** The text the chain (and the devnet) puts in ErrAuthorizationExists messages. */
export const AUTHORIZATION_EXISTS_TEXT = "authorization already exists";

/**
 * True when a failed MsgAuthorizeOperator answer means the pair is already authorized
 * (ErrAuthorizationExists), which onboarding treats as success. Accepts the one Cosmos error
 * shape (`{code, message, details}`), a tx result (`{raw_log}`), or a plain message string.
 */
export function isAuthorizationExists(answer: unknown): boolean {
  if (typeof answer === "string") return answer.toLowerCase().includes(AUTHORIZATION_EXISTS_TEXT);
  if (typeof answer !== "object" || answer === null) return false;
  const record = answer as Record<string, unknown>;
  for (const key of ["message", "raw_log", "log", "error"]) {
    if (isAuthorizationExists(record[key])) return true;
  }
  const details = record.details;
  if (Array.isArray(details)) {
    return details.some((d) => typeof d === "object" && d !== null && (d as Record<string, unknown>).reason === "ErrAuthorizationExists");
  }
  return false;
}

/**
 * Refusals of the message and command builders, as values a caller can branch on. They are
 * raised before anything is signed; the chain's own errors of the same name are the last defence.
 */
import * as z from "zod/mini";

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
const AUTHORIZATION_EXISTS_TEXT = "authorization already exists";

/**
 * What is read of a chain error: its texts (each a string, or an error nested in it) and the reasons of its details.
 */
const chainError = z.looseObject({
  message: z.optional(z.unknown()),
  raw_log: z.optional(z.unknown()),
  log: z.optional(z.unknown()),
  error: z.optional(z.unknown()),
  details: z.optional(z.array(z.unknown())),
});
const errorDetail = z.looseObject({ reason: z.string() });

/**
 * True when a failed MsgAuthorizeOperator answer means the pair is already authorized
 * (ErrAuthorizationExists), which onboarding treats as success. Accepts the one Cosmos error
 * shape (`{code, message, details}`), a tx result (`{raw_log}`), or a plain message string;
 * anything else (a malformed answer included) is not that error.
 */
export function isAuthorizationExists(answer: unknown): boolean {
  if (typeof answer === "string") return answer.toLowerCase().includes(AUTHORIZATION_EXISTS_TEXT);
  const parsed = z.safeParse(chainError, answer);
  if (!parsed.success) return false;
  const { message, raw_log, log, error, details } = parsed.data;
  if ([message, raw_log, log, error].some((text) => text !== undefined && isAuthorizationExists(text))) return true;
  return (details ?? []).some((detail) => z.safeParse(errorDetail, detail).data?.reason === "ErrAuthorizationExists");
}

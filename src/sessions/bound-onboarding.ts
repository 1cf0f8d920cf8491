/**
 * What the wallet is answered when its confirm pairs a host's onboarding (a bound session,
 * src/sessions/machine.ts): the onboarding's own decision, never a bare "connected". It took this
 * wallet (or already holds this same wallet): the row, 200. It holds another wallet: 409. It was
 * cancelled, expired or no longer exists: 410. It did not answer in time: 503, the tell still owed.
 */
import { GrpcCode, type ErrorSpec } from "../errors";

/** How long the confirm waits for the onboarding's answer: a hung onboarding object must not hang the wallet. */
export const TELL_TIMEOUT_MS = 5_000;

const NOT_CONNECTED = "this wallet was not connected to it";

/** The onboarding's refusal of the tell, as the wallet's confirm answers it. */
export function boundRefusal(refusal: ErrorSpec): ErrorSpec {
  const gone = (reason: string, why: string): ErrorSpec => ({
    status: 410,
    code: GrpcCode.FAILED_PRECONDITION,
    reason,
    message: `The host's onboarding this session belongs to ${why}; ${NOT_CONNECTED}. Ask your host for a new link`,
  });
  switch (refusal.reason) {
    case "ONBOARDING_ALREADY_PAIRED":
    case "ONBOARDING_APPLIED":
      return {
        status: 409,
        code: GrpcCode.ABORTED,
        reason: "ONBOARDING_ALREADY_PAIRED",
        message: `The host's onboarding of this session is already paired with another wallet; ${NOT_CONNECTED}`,
      };
    case "ONBOARDING_CANCELLED":
      return gone(refusal.reason, "was cancelled");
    case "ONBOARDING_EXPIRED":
      return gone(refusal.reason, "expired");
    case "ONBOARDING_NOT_FOUND":
      return gone(refusal.reason, "no longer exists");
    default:
      return { ...refusal, message: `The host's onboarding refused this wallet: ${refusal.message}` };
  }
}

/** The confirm of a bound session whose onboarding has not answered yet (the tell is owed and retried). */
export const ONBOARDING_NOT_ANSWERING: ErrorSpec = {
  status: 503,
  code: GrpcCode.UNAVAILABLE,
  reason: "ONBOARDING_NOT_ANSWERING",
  message:
    `The host's onboarding did not answer within ${TELL_TIMEOUT_MS / 1000} s; the confirm is kept and handed to ` +
    "it again: send the same confirm again for its answer",
};

/** `call`'s answer, or a rejection once `ms` have passed without one (the call itself is left to finish or not). */
export function answerWithin<T>(call: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([call, late]).finally(() => clearTimeout(timer));
}

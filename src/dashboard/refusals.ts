/** The dashboard's refusals in the one error shape: a failure to sign in or to be signed in is a 401; too many, 429. */
import { ApiError, GrpcCode } from "../errors";
import { clientIp, type RateLimitRule } from "../http/rate-limit";

/** A 401 the page answers by showing the sign-in; `signIn` says which (a key form, or Cloudflare Access). */
export const signedOut = (reason: string, message: string, signIn: "key" | "access") =>
  new ApiError({ status: 401, code: GrpcCode.UNAUTHENTICATED, reason, message, metadata: { sign_in: signIn } });

/** Too many sign-ins from one client: the next one is refused before its key is looked at. */
export const SIGN_IN_LIMIT: RateLimitRule = {
  binding: (env) => env.DASHBOARD_SIGN_IN_LIMITER,
  key: (c) => `sign-in:${clientIp(c)}`,
  message: "Too many sign-in attempts from this client; wait a minute, then sign in with a valid host API key",
};

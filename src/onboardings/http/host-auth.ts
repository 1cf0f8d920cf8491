/**
 * The host API's door: `Authorization: Bearer <key>` with one of HOST_API_KEYS (several during a
 * rotation), compared in constant time, never logged or echoed, accepted nowhere else.
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../../app-env";
import { ApiError, GrpcCode } from "../../errors";

const CHALLENGE = { "www-authenticate": 'Bearer realm="host API"' };

/** Query parameters that look like a credential: a key there is refused as if there were none. */
const CREDENTIAL_PARAMS = /^(api[_-]?key|key|token|access[_-]?token|auth|authorization|bearer)$/i;

const unauthorized = (reason: string, message: string) =>
  new ApiError({ status: 401, code: GrpcCode.UNAUTHENTICATED, reason, message }, CHALLENGE);

const digests = new WeakMap<readonly string[], Promise<ArrayBuffer[]>>();

const sha256 = (text: string) => crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));

/**
 * True when `presented` is one of `keys`. Every key is compared, each as a SHA-256 digest with
 * the platform's constant-time comparison, so neither the key nor which one matched shows in the timing.
 */
async function isHostKey(keys: readonly string[], presented: string): Promise<boolean> {
  let known = digests.get(keys);
  if (!known) digests.set(keys, (known = Promise.all(keys.map(sha256))));
  const candidate = await sha256(presented);
  let match = false;
  for (const digest of await known) match = crypto.subtle.timingSafeEqual(digest, candidate) || match;
  return match;
}

/** Lets through requests that carry a host key in the Authorization header; refuses the rest in the one error shape. */
export function hostAuth(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const keys = c.get("config").hostApiKeys;
    if (keys.length === 0) {
      throw new ApiError({
        status: 503,
        code: GrpcCode.FAILED_PRECONDITION,
        reason: "HOST_API_NOT_CONFIGURED",
        message:
          "The host API is not configured on this deployment: set HOST_API_KEYS (wrangler secret put HOST_API_KEYS)",
        metadata: { variable: "HOST_API_KEYS" },
      });
    }
    const params = [...new URL(c.req.url).searchParams.keys()];
    // A key in the URL is exposed (logs, history, referrers) whether or not the header came too: the advice comes
    // first.
    // Each route's own query validation refuses the other parameters it does not take.
    if (params.some((name) => CREDENTIAL_PARAMS.test(name))) {
      throw unauthorized(
        "CREDENTIALS_IN_URL",
        "Keys are accepted only in the Authorization header, never in the URL; rotate a key that was sent there",
      );
    }
    const header = c.req.header("authorization");
    if (header === undefined)
      throw unauthorized(
        "MISSING_CREDENTIALS",
        "Send a host API key as Authorization: Bearer <key>; it is accepted nowhere else",
      );
    const match = /^Bearer +(\S+) *$/i.exec(header);
    if (!match || !(await isHostKey(keys, match[1]!)))
      throw unauthorized("INVALID_CREDENTIALS", "The Authorization header does not carry a valid host API key");
    await next();
  };
}

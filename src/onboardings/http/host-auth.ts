/**
 * The host API's door: `Authorization: Bearer <key>` with one of HOST_API_KEYS (several during a
 * rotation), compared in constant time, never logged or echoed, accepted nowhere else; or, without
 * that header, a dashboard session standing for a key (src/dashboard/session-auth.ts).
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../../app-env";
import { passesAsDashboard } from "../../dashboard/session-auth";
import { ApiError, GrpcCode } from "../../errors";
import { hostApiNotConfigured } from "./host-api-refusals";

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
export async function isHostKey(keys: readonly string[], presented: string): Promise<boolean> {
  let known = digests.get(keys);
  if (!known) digests.set(keys, (known = Promise.all(keys.map(sha256))));
  const candidate = await sha256(presented);
  let match = false;
  for (const digest of await known) match = crypto.subtle.timingSafeEqual(digest, candidate) || match;
  return match;
}

/** A host key's shape, as HOST_API_KEYS takes it: 32 printable characters or more, no space, no comma. */
const KEY_SHAPE = /^[\x21-\x2b\x2d-\x7e]{32,}$/;

/**
 * Why an Authorization header cannot carry a host key, in words that name the cause (an empty key is
 * what a shell variable or a `sed` that matched nothing leaves); null when it has the shape of one.
 * The key itself is never echoed.
 */
function bearerProblem(header: string): string | null {
  const match = /^\s*Bearer(?:\s+([\s\S]*?))?\s*$/i.exec(header);
  if (!match) return "The Authorization header must be Bearer <key>, one host API key after the word Bearer";
  const key = match[1] ?? "";
  if (key === "") return "The Authorization header's bearer key is empty: send Authorization: Bearer <key>";
  if (/\s/.test(key))
    return "The Authorization header's bearer key is malformed: it holds a space or a line break (one key, no spaces)";
  if (!KEY_SHAPE.test(key))
    return (
      `The Authorization header's bearer key is malformed: host API keys are at least 32 printable characters ` +
      `without spaces or commas, and this one has ${key.length}`
    );
  return null;
}

/** Lets through requests that carry a host key in the Authorization header; refuses the rest in the one error shape. */
export function hostAuth(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const keys = c.get("config").hostApiKeys;
    if (keys.length === 0) {
      throw hostApiNotConfigured();
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
    if (await passesAsDashboard(c)) return next();
    const header = c.req.header("authorization");
    if (header === undefined)
      throw unauthorized(
        "MISSING_CREDENTIALS",
        "Send a host API key as Authorization: Bearer <key>; it is accepted nowhere else",
      );
    const problem = bearerProblem(header);
    if (problem) throw unauthorized("INVALID_CREDENTIALS", problem);
    if (!(await isHostKey(keys, header.trim().slice("bearer".length).trim())))
      throw unauthorized(
        "INVALID_CREDENTIALS",
        "The Authorization header's bearer key is not one of this deployment's HOST_API_KEYS",
      );
    await next();
  };
}

/**
 * The one per-client limit, on a Workers rate limiting binding (wrangler.toml says what each
 * allows): the request's key is counted by the binding, and past its allowance the request is
 * refused, 429 `RATE_LIMITED` in the one error shape with `Retry-After: 60` (the bindings' period
 * is 60 s). Off with `RATE_LIMITS=off` (local load tests only).
 */
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env";
import { ApiError, GrpcCode } from "../errors";

/** What a limit counts: on which binding, under which key, and what a refused client is told. */
export interface RateLimitRule {
  /** The binding that counts, e.g. `(env) => env.SESSION_CREATE_LIMITER`. */
  binding: (env: Env) => RateLimit;
  /** The key counted for this request, e.g. the client's IP (`clientIp`). */
  key: (c: Context<AppEnv>) => string;
  /** The refusal's message. */
  message: string;
}

/** The client's IP as Cloudflare gives it (`CF-Connecting-IP`); "unknown" without one. */
export const clientIp = (c: Context<AppEnv>): string => c.req.header("cf-connecting-ip") ?? "unknown";

/** Counts this request under `rule`; throws the 429 once the binding refuses it. Nothing with `RATE_LIMITS=off`. */
export async function enforceRateLimit(c: Context<AppEnv>, rule: RateLimitRule): Promise<void> {
  if (!c.get("config").rateLimits) return;
  const { success } = await rule.binding(c.env).limit({ key: rule.key(c) });
  if (success) return;
  throw new ApiError(
    { status: 429, code: GrpcCode.RESOURCE_EXHAUSTED, reason: "RATE_LIMITED", message: rule.message },
    { "retry-after": "60" },
  );
}

/** A middleware that enforces `rule` before the handler runs (`enforceRateLimit`). */
export function rateLimit(rule: RateLimitRule): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await enforceRateLimit(c, rule);
    await next();
  };
}

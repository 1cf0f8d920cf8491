/** The per-client limit on session creation (the Workers rate limiting binding). */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env";
import { ApiError, GrpcCode } from "../errors";

/** Refuses a create beyond `SESSION_CREATE_LIMITER`'s allowance for the client IP (429); off with `RATE_LIMITS=off`. */
export const createRateLimit: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.get("config").rateLimits) {
    const client = c.req.header("cf-connecting-ip") ?? "unknown";
    const { success } = await c.env.SESSION_CREATE_LIMITER.limit({ key: client });
    if (!success) {
      throw new ApiError(
        { status: 429, code: GrpcCode.RESOURCE_EXHAUSTED, reason: "RATE_LIMITED", message: "Too many sessions created from this client; retry in a minute" },
        { "retry-after": "60" },
      );
    }
  }
  await next();
};

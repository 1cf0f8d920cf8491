/** The per-client limit on storing new sessions (the Workers rate limiting binding). */
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env";
import { ApiError, GrpcCode } from "../errors";

/**
 * Refuses (429) a new session beyond `SESSION_CREATE_LIMITER`'s allowance for the client IP:
 * a create, or the first use of a signed id, which stores its row. Off with `RATE_LIMITS=off`.
 */
export async function limitNewSessions(c: Context<AppEnv>): Promise<void> {
  if (!c.get("config").rateLimits) return;
  const client = c.req.header("cf-connecting-ip") ?? "unknown";
  const { success } = await c.env.SESSION_CREATE_LIMITER.limit({ key: client });
  if (!success) {
    throw new ApiError(
      {
        status: 429,
        code: GrpcCode.RESOURCE_EXHAUSTED,
        reason: "RATE_LIMITED",
        message: "Too many sessions created from this client; retry in a minute",
      },
      { "retry-after": "60" },
    );
  }
}

/** `limitNewSessions` before a create. */
export const createRateLimit: MiddlewareHandler<AppEnv> = async (c, next) => {
  await limitNewSessions(c);
  await next();
};

/** The per-client limit on storing new sessions (`SESSION_CREATE_LIMITER`): a create, or a signed id's first use. */
import type { Context } from "hono";
import type { AppEnv } from "../app-env";
import { clientIp, enforceRateLimit, rateLimit, type RateLimitRule } from "../http/rate-limit";

const newSessions: RateLimitRule = {
  binding: (env) => env.SESSION_CREATE_LIMITER,
  key: clientIp,
  message: "Too many sessions created from this client; retry in a minute",
};

/** Refuses (429) a new session beyond the client IP's allowance: the first use of a signed id, which stores its row. */
export const limitNewSessions = (c: Context<AppEnv>): Promise<void> => enforceRateLimit(c, newSessions);

/** The same limit before a create. */
export const createRateLimit = rateLimit(newSessions);

import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app";
import type { Config } from "../config";

/**
 * Gives every request its configuration and a request id (Cloudflare's ray id when there is one),
 * and returns the id in `x-request-id` so a user's report can be found in the logs.
 */
export function requestContext(config: Config): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const requestId = c.req.header("cf-ray") ?? crypto.randomUUID();
    c.set("config", config);
    c.set("requestId", requestId);
    await next();
    c.res.headers.set("x-request-id", requestId);
  };
}

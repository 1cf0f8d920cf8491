/** The middleware that reports how every gateway request was served. */
import type { MiddlewareHandler } from "hono";
import { setMetric } from "hono/timing";
import { xCache } from "./cache-status";
import type { GatewayEnv } from "./gateway-env";

/**
 * Reports how every gateway request was served: X-Cache and the Server-Timing metrics `cache`
 * (and `shield` on a miss through it), from what the tier that answered recorded (`respond()` in respond.ts).
 */
export function reportCacheStatus(): MiddlewareHandler<GatewayEnv> {
  return async (c, next) => {
    // Until a cache tier answers, the gateway took the request without one.
    c.set("cache", "BYPASS");
    await next();
    const status = c.get("cache")!;
    const shield = c.get("shield");
    c.res.headers.set("x-cache", xCache(status, shield));
    setMetric(c, "cache", status);
    if (shield) setMetric(c, "shield", shield.ms, "fault" in shield ? "fail-open" : shield.status);
  };
}

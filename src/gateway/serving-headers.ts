/**
 * The headers that say how every gateway request was served, written once from what the request
 * recorded on its way: X-Cache (the status the tier that answered gave, `respond()` in
 * respond.ts; BYPASS when none did), and Server-Timing with `cache`, `miss` (the wait beyond the
 * data center), `shield` (what the shield did, or `fail-open`) and `total`, readable by any
 * origin (Timing-Allow-Origin); on a miss, the node that answered and the attempts it took
 * (X-Edge-Upstream, X-Edge-Attempts); on a latest read below the highest height served, how far
 * below (X-Edge-Behind, served-height.ts).
 */
import type { MiddlewareHandler } from "hono";
import { type CacheStatus, type ShieldTrace, xCache } from "./cache-status";
import type { GatewayEnv } from "./gateway-env";

/**
 * Server-Timing of a request served with `status`, `startedAt` (epoch ms), after a miss's wait and the shield's part.
 */
export function serverTiming(status: CacheStatus, startedAt: number, missMs?: number, shield?: ShieldTrace): string {
  const metrics = [`cache;desc="${status}"`];
  if (missMs !== undefined) metrics.push(`miss;dur=${missMs.toFixed(1)}`);
  if (shield)
    metrics.push(`shield;dur=${shield.ms.toFixed(1)};desc="${"fault" in shield ? "fail-open" : shield.status}"`);
  metrics.push(`total;dur=${(Date.now() - startedAt).toFixed(1)};desc="gateway"`);
  return metrics.join(",");
}

export function servingHeaders(): MiddlewareHandler<GatewayEnv> {
  return async (c, next) => {
    // Until a cache tier answers, the gateway took the request without one.
    c.set("cache", "BYPASS");
    await next();
    const status = c.get("cache")!;
    const shield = c.get("shield");
    const headers = c.res.headers;
    headers.set("x-cache", xCache(status, shield));
    headers.set("server-timing", serverTiming(status, c.get("startedAt"), c.get("missMs"), shield));
    headers.set("timing-allow-origin", "*");
    const upstream = c.get("upstream");
    if (upstream) {
      headers.set("x-edge-upstream", upstream.origin);
      headers.set("x-edge-attempts", String(upstream.attempts));
    }
    const behind = c.get("behind");
    if (behind) headers.set("x-edge-behind", String(behind));
  };
}

/**
 * The cached gateway for the network's module queries, mounted under `/api`: the routes of
 * `route-table.ts` under `/<CHAIN_NAMESPACE>/…` and `/cosmos/…`, GET/HEAD answered from the edge
 * cache and the upstream LCD nodes, OPTIONS as CORS preflight, anything else 405.
 *
 * One pipeline per request: Server-Timing (`timing`) → cache status and hot replays
 * (`cacheStatus`) → CORS (`cors`, on answers, errors and preflights alike) → validation
 * (`validQuery`) → `serveQuery`.
 */
import { Hono } from "hono";
import { cors } from "hono/cors";
import { timing } from "hono/timing";
import type { Config } from "../config";
import { methodNotAllowed } from "../http/method-not-allowed";
import { resetInflight } from "./coalesce";
import type { GatewayEnv } from "./gateway-env";
import { resetHotCache } from "./hot-cache";
import { cacheStatus } from "./hot-path";
import { HEIGHT_HEADER, compileRoutes } from "./match";
import { serveQuery } from "./serve";
import { shieldHealth } from "./shield/health-link";
import { resetUpstreamHealth } from "./upstreams";
import { validQuery } from "./valid-query";

export { upstreamHealth, type UpstreamState } from "./upstreams";

/** Methods the gateway answers: it is read-only. */
const METHODS = ["GET", "HEAD", "OPTIONS"];

/** Headers a browser may read from a gateway answer. */
const EXPOSED = ["age", "etag", "x-cache", HEIGHT_HEADER, "server-timing", "x-request-id"];

/** The gateway's routes for one configuration. */
export function gatewayRoutes(config: Config): Hono<GatewayEnv> {
  const routes = compileRoutes(config);
  // Public chain data: any origin may read it, preflights allow the headers they ask for (If-None-Match, x-cosmos-block-height).
  const publicData = cors({ origin: "*", allowMethods: METHODS, exposeHeaders: EXPOSED, maxAge: 86_400 });
  const serverTiming = timing({ totalDescription: "gateway", crossOrigin: true });
  const status = cacheStatus();
  const valid = validQuery(routes);
  const refuseMethod = methodNotAllowed(METHODS.join(", "));

  const app = new Hono<GatewayEnv>();
  for (const prefix of [`/${config.namespace}`, "/cosmos"]) {
    app.use(`${prefix}/*`, serverTiming, status, publicData);
    app.get(`${prefix}/*`, valid, serveQuery);
    // Broadcasts and every other write: the gateway never forwards them, whatever the path.
    app.all(`${prefix}/*`, refuseMethod);
  }
  return app;
}

/** Forgets the isolate's gateway state: hot entries, in-flight refreshes, upstream health, the shields' board (tests start from nothing). */
export function resetGatewayState(): void {
  resetHotCache();
  resetInflight();
  resetUpstreamHealth();
  shieldHealth.reset();
}

/**
 * The cached gateway for the network's module queries, mounted under `/api`: the routes of
 * `route-table.ts` under `/<CHAIN_NAMESPACE>/…` and `/cosmos/…`, GET/HEAD answered from the edge
 * cache and the upstream LCD nodes, OPTIONS as CORS preflight, anything else 405.
 *
 * A hit in the isolate's memory is answered before the router runs (memory-answer.ts). Every
 * other request takes one pipeline: X-Cache and Server-Timing (`servingHeaders`) → CORS
 * (`publicCors`, on answers, errors and preflights alike) → the row the router picked:
 * validation (`validQuery`) → the Cache API and beyond (`serveQuery`).
 */
import { Hono } from "../http/router";
import type { Config } from "../config";
import { methodNotAllowed } from "../http/method-not-allowed";
import { resetInflight } from "./coalesce";
import type { GatewayEnv } from "./gateway-env";
import { resetHotCache } from "./hot-cache";
import { resetCallMemo } from "./rpc/call-memo";
import { compileRoutes } from "./match";
import { publicCors } from "./public-cors";
import { EXPOSED_HEADERS } from "./respond";
import { serveQuery } from "./serve";
import { servingHeaders } from "./serving-headers";
import { shieldHealth } from "./shield/health-link";
import { resetServedHeight } from "./served-height";
import { resetUpstreamHealth } from "./upstreams";
import { refuseUnknownQuery, validQuery } from "./valid-query";

/** Methods the gateway answers: it is read-only. */
const METHODS = ["GET", "HEAD", "OPTIONS"];

/** The gateway's routes for one configuration. */
export function gatewayRoutes(config: Config): Hono<GatewayEnv> {
  const served = servingHeaders();
  // Public chain data: any origin may read it.
  const cors = publicCors({ allowMethods: METHODS, exposeHeaders: EXPOSED_HEADERS, maxAgeSeconds: 86_400 });
  const refuseMethod = methodNotAllowed(METHODS.join(", "));
  const prefixes = [`/${config.namespace}`, "/cosmos"];

  const app = new Hono<GatewayEnv>();
  for (const prefix of prefixes) app.use(`${prefix}/*`, served, cors);
  // One route per row of the table: the router picks the row, and `routePath(c)` names it in the access log.
  for (const row of compileRoutes(config)) app.get(row.path, validQuery(row), serveQuery);
  for (const prefix of prefixes) {
    app.get(`${prefix}/*`, refuseUnknownQuery);
    // Broadcasts and every other write: the gateway never forwards them, whatever the path.
    app.all(`${prefix}/*`, refuseMethod);
  }
  return app;
}

/**
 * Forgets the isolate's gateway state: hot entries, in-flight refreshes, upstream health, the shields' board (tests
 * start from nothing).
 * @internal Tests start each file from nothing.
 */
export function resetGatewayState(): void {
  resetHotCache();
  resetCallMemo();
  resetInflight();
  resetUpstreamHealth();
  resetServedHeight();
  shieldHealth.reset();
}

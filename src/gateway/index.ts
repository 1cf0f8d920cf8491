/**
 * The cached gateway for the network's module queries, mounted under `/api`: the routes of
 * `route-table.ts` under `/<CHAIN_NAMESPACE>/…` and `/cosmos/…`, GET/HEAD answered from the edge
 * cache and the upstream LCD nodes, OPTIONS as CORS preflight, anything else 405.
 */
import { Hono } from "hono";
import type { AppEnv } from "../app-env";
import type { Config } from "../config";
import { methodNotAllowed } from "../http/method-not-allowed";
import { compileRoutes, matchQuery } from "./match";
import { ALLOWED_METHODS, CORS_HEADERS, preflight, type CacheStatus } from "./respond";
import { serveQuery } from "./serve";

export { upstreamHealth, type UpstreamState } from "./upstreams";

/** Path prefix the gateway is mounted at (`app.route("/api", gatewayRoutes(config))`). */
const MOUNT = "/api";

/** The gateway's routes for one configuration. */
export function gatewayRoutes(config: Config): Hono<AppEnv> {
  const routes = compileRoutes(config);
  const refuseMethod = methodNotAllowed(ALLOWED_METHODS);
  const app = new Hono<AppEnv>();
  for (const prefix of [`/${config.namespace}`, "/cosmos"]) {
    // Errors included: browsers must be able to read a refusal of public data too.
    app.use(`${prefix}/*`, async (c, next) => {
      const startedAt = Date.now();
      await next();
      const headers = c.res.headers;
      for (const [name, value] of Object.entries(CORS_HEADERS)) headers.set(name, value);
      if (!headers.has("x-cache")) {
        // Refused before the cache (BYPASS), or no upstream could answer and nothing was cached (MISS).
        headers.set("x-cache", (c.res.status >= 500 ? "MISS" : "BYPASS") satisfies CacheStatus);
        headers.set("server-timing", `gateway;dur=${Date.now() - startedAt}`);
      }
    });
    app.all(`${prefix}/*`, (c) => {
      const url = new URL(c.req.url);
      const path = url.pathname.slice(MOUNT.length);
      const method = c.req.method;
      if (method === "GET" || method === "HEAD") {
        const shields = config.cacheShield ? c.env.QUERY_SHIELDS : null;
        return serveQuery(config, c.executionCtx as ExecutionContext, c.req.raw, matchQuery(routes, path, url.search), shields);
      }
      matchQuery(routes, path, "");
      return method === "OPTIONS" ? preflight(c.req.raw) : refuseMethod(c);
    });
  }
  return app;
}

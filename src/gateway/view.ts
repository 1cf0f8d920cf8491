/**
 * `GET /api/gateway` (host API: a bearer key or a dashboard session): what the gateway knows of its
 * nodes, per face and node in configured order, as docs/GATEWAY.md ("The operator's view") gives
 * it: height, lag, latency, errors in the last minute, and whether the node is serving, benched
 * (why, until when) or behind. This isolate's view, merged with the shields' (the shared health
 * object) when the shield tier is on.
 */
import type { Context } from "hono";
import type { AppEnv } from "../app-env";
import { methodNotAllowed } from "../http/method-not-allowed";
import { Hono } from "../http/router";
import { hostAuth } from "../onboardings/http/host-auth";
import { noQuery } from "../onboardings/http/requests";
import type { GatewayView } from "../protocol/gateway-view";
import { servedHeight } from "./served-height";
import { sharedUpstreamHealth } from "./shield/health-link";
import { nodeViews } from "./upstreams";

async function gatewayView(c: Context<AppEnv>): Promise<Response> {
  const config = c.get("config");
  const shared = config.cacheShield ? await sharedUpstreamHealth(c.env.UPSTREAM_HEALTH, config) : null;
  const now = Date.now();
  const view: GatewayView = {
    at: new Date(now).toISOString(),
    served_height: servedHeight(),
    faces: { rest: nodeViews(config.upstreamUrls, shared, now), rpc: nodeViews(config.rpcUpstreamUrls, shared, now) },
  };
  return c.json(view, 200, { "cache-control": "no-store" });
}

/** `/api/gateway`: the nodes' view, for a host API key or a dashboard session. */
export function gatewayViewRoutes(): Hono<AppEnv> {
  return new Hono<AppEnv>().use(hostAuth()).get("/", noQuery, gatewayView).all("/", methodNotAllowed("GET, HEAD"));
}

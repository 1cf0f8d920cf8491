/**
 * The route table of the whole Worker: every path the server answers is mounted here, and every
 * error leaves through `onError` in the one error shape. The pipeline in front of it (body limit,
 * memory tier) is src/entry.ts.
 */
import { Hono } from "./http/router";
import { refuseOverBodyLimit } from "./http/body-limit";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "./app-env";
import type { Config } from "./config";
import { ApiError, GrpcCode, errorResponse, httpStatusSpec } from "./errors";
import { gatewayRoutes } from "./gateway";
import { liveUpgrade } from "./gateway/live/upgrade";
import { routeNotFound } from "./gateway/route-not-found";
import { rpcRoutes } from "./gateway/rpc";
import { healthRoute } from "./http/health";
import { gatewayViewRoutes } from "./gateway/view";
import { log } from "./log";
import { openApiRoute } from "./openapi/template";
import { pathOf, requestContext } from "./middleware/request-context";
import { onboardingPage } from "./page";
import { pageSettings } from "./page/settings";
import { dashboardRoutes, overviewRoutes } from "./dashboard/routes";
import { customerRoutes, eventRoutes, hostRoutes, webhookRoutes } from "./onboardings/http/routes";
import { sessionRoutes } from "./sessions/routes";

/** Builds the app for one configuration; the wallet path is part of the routes. */
export function buildApp(config: Config): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(requestContext(config), refuseOverBodyLimit);

  const mounts = {
    [`/api/${config.walletPath}/sessions`]: sessionRoutes(),
    "/api/onboardings": hostRoutes(),
    "/api/events": eventRoutes(),
    "/api/webhook": webhookRoutes(),
    "/api/onboarding-pages": customerRoutes(),
    "/api/overview": overviewRoutes(),
    "/api/gateway": gatewayViewRoutes(),
    "/dashboard": dashboardRoutes(),
  };
  for (const [mount, routes] of Object.entries(mounts)) {
    // hono/tiny's router takes `/a/` for `/a`: a trailing slash names no route here (the gateway refuses its own).
    app.use(`${mount}/*`, async (c, next) => (c.req.path.endsWith("/") ? c.notFound() : next()));
    app.route(mount, routes);
  }
  app.get("/", onboardingPage(config));
  app.get("/api/config", (c) => c.json(pageSettings(config), 200, { "cache-control": "public, max-age=60" }));
  app.get("/api/health", healthRoute(config));
  app.get("/api/openapi.json", openApiRoute(config));
  app.route("/api", gatewayRoutes(config));
  // The live face (CometBFT's /websocket) before the RPC face's URI-style `/rpc/:method`.
  app.get("/rpc/websocket", liveUpgrade);
  app.route("/rpc", rpcRoutes(config));

  // A Response, not a throw: Hono runs the not-found handler inside the request context's `next()`, which a throw would
  // skip, access log and all.
  app.notFound((c) => errorResponse(routeNotFound(config, c.req.method, pathOf(c.req.url))));
  app.onError((err, c) => {
    const requestId = c.get("requestId");
    if (err instanceof ApiError) return errorResponse(err, { ...err.headers, "x-request-id": requestId });
    // A refusal from hono's own middleware: its status and words, in the one shape, and the headers
    // of its own response (a `WWW-Authenticate`, a `Retry-After`) but for the body's.
    if (err instanceof HTTPException) {
      const own = new Headers(err.res?.headers);
      for (const name of ["content-type", "content-length"]) own.delete(name);
      own.set("x-request-id", requestId);
      return errorResponse(httpStatusSpec(err.status, err.message), own);
    }
    log("error", "internal_error", { request_id: requestId, error: String(err), stack: err.stack });
    return errorResponse(
      {
        status: 500,
        code: GrpcCode.INTERNAL,
        reason: "INTERNAL",
        message: "Internal error; the request id names it in the logs",
      },
      { "x-request-id": requestId },
    );
  });
  return app;
}

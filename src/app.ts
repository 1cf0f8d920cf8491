/**
 * The route table of the whole Worker: every path the server answers is mounted here, and every
 * error leaves through `onError` in the one error shape.
 */
import type { MiddlewareHandler } from "hono";
import { Hono } from "./http/router";
import { MAX_BODY_BYTES, afterDiscarding, bodyTooLarge, isOverBodyLimit, withinBodyLimit } from "./http/body-limit";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "./app-env";
import type { Config } from "./config";
import { ApiError, GrpcCode, errorResponse, httpStatusSpec } from "./errors";
import { gatewayRoutes } from "./gateway";
import { liveUpgrade } from "./gateway/live/upgrade";
import { answerFromMemory } from "./gateway/memory-answer";
import { routeNotFound } from "./gateway/route-not-found";
import { rpcRoutes } from "./gateway/rpc";
import { RPC_ROUTE } from "./gateway/rpc/limits";
import { gatewayViewRoutes } from "./gateway/view";
import { sharedUpstreamHealth } from "./gateway/shield/health-link";
import { healthReport, indexHealth } from "./http/health";
import { log } from "./log";
import { servedOpenApi } from "./openapi/template";
import { pathOf, requestContext } from "./middleware/request-context";
import { onboardingPage } from "./page";
import { pageSettings } from "./page/settings";
import { dashboardRoutes, overviewRoutes } from "./dashboard/routes";
import { customerRoutes, eventRoutes, hostRoutes, webhookRoutes } from "./onboardings/http/routes";
import { sessionRoutes } from "./sessions/routes";

/** Builds the app for one configuration; the wallet path is part of the routes. */
export function buildApp(config: Config): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(requestContext(config), overLimitGuard);

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
  app.get("/api/health", async (c) => {
    const lanes = c.env.WEBHOOK_LANES;
    const [shared, endpoint, index] = await Promise.all([
      config.cacheShield ? sharedUpstreamHealth(c.env.UPSTREAM_HEALTH, config) : null,
      // The lane answers from memory; one that cannot be reached leaves the endpoint's state unknown.
      config.hostWebhook
        ? lanes
            .get(lanes.idFromName(config.hostWebhook.url))
            .status()
            .catch(() => null)
        : null,
      indexHealth(c.env.ONBOARDING_INDEX),
    ]);
    const report = { ...healthReport(config, c.env.CF_VERSION_METADATA, shared, Date.now(), endpoint), index };
    return c.json(report, report.status === "ok" ? 200 : 503, { "cache-control": "no-store" });
  });
  let openApi: string | undefined;
  app.get("/api/openapi.json", async (c) => {
    openApi ??= await servedOpenApi(c.env.ASSETS, c.req.url, config);
    return c.body(openApi, 200, { "content-type": "application/json", "cache-control": "public, max-age=300" });
  });
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
  // A hit in the isolate's memory is answered before the router (src/gateway/memory-answer.ts); a body is measured
  // against the Worker's one limit before anything reads it (src/http/body-limit.ts).
  const route = app.fetch;
  const answer = (request: Request, env: Parameters<typeof route>[1], ctx: Parameters<typeof route>[2]) => {
    const memory = isOverBodyLimit(request)
      ? null
      : answerFromMemory(request, config, (env as Partial<Env> | undefined)?.GATEWAY_METRICS);
    if (memory === null) return route(request, env, ctx);
    if (memory instanceof Response) return memory;
    return memory.then((answered) => answered ?? route(request, env, ctx));
  };
  app.fetch = (request, env, ctx) => {
    if (request.body === null) return answer(request, env, ctx);
    // A declared length is judged at once (no promise before the memory tier); a streamed body is read first.
    const measured = withinBodyLimit(request);
    return measured instanceof Promise ? measured.then((r) => measuredAnswer(r, env, ctx)) : answer(measured, env, ctx);
  };
  const measuredAnswer = async (
    request: Request,
    ...rest: [Parameters<typeof route>[1], Parameters<typeof route>[2]]
  ) => {
    const response = await answer(request, ...rest);
    return isOverBodyLimit(request) ? afterDiscarding(response, request) : response;
  };
  return app;
}

/** A body the entry found over the Worker's limit is refused before a route reads it; the RPC face refuses its own. */
const overLimitGuard: MiddlewareHandler<AppEnv> = async (c, next) => {
  const path = c.req.path;
  const rpc = path === RPC_ROUTE || path.startsWith(`${RPC_ROUTE}/`);
  if (!rpc && isOverBodyLimit(c.req.raw)) throw bodyTooLarge(MAX_BODY_BYTES);
  await next();
};

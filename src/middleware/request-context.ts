import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env";
import type { Config } from "../config";

/**
 * Gives every request its configuration and a request id (Cloudflare's ray id when there is one),
 * returns the id in `x-request-id` so a user's report can be found in the logs, and prints one
 * structured JSON access-log line per request (Workers Logs indexes its fields).
 */
export function requestContext(config: Config): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = Date.now();
    const requestId = requestIdOf(c.req.raw);
    c.set("config", config);
    c.set("requestId", requestId);
    await next();
    c.res = withHeader(c.res, "x-request-id", requestId);
    console.log(JSON.stringify(accessLogLine(c, requestId, Date.now() - started)));
  };
}

/** The id of a request: Cloudflare's ray id when there is one, else a fresh UUID. */
export function requestIdOf(request: Request): string {
  return request.headers.get("cf-ray") ?? crypto.randomUUID();
}

/** The access-log record: who asked what, the answer, the cache state and the upstream's time. */
export function accessLogLine(c: Context<AppEnv>, requestId: string, durationMs: number) {
  const upstream = /(?:^|,)\s*upstream;dur=([\d.]+)/.exec(c.res.headers.get("server-timing") ?? "");
  return {
    level: c.res.status >= 500 ? "error" : "info",
    request_id: requestId,
    method: c.req.method,
    route: c.get("route") ?? c.req.routePath,
    path: new URL(c.req.url).pathname,
    status: c.res.status,
    cache: c.res.headers.get("x-cache"),
    upstream_ms: upstream ? Number(upstream[1]) : null,
    duration_ms: durationMs,
    colo: (c.req.raw.cf as { colo?: string } | undefined)?.colo ?? null,
  };
}

/** Sets a header, copying the response first when its headers are immutable (a Durable Object's answer). */
function withHeader(response: Response, name: string, value: string): Response {
  try {
    response.headers.set(name, value);
    return response;
  } catch {
    const copy = new Response(response.body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
      webSocket: response.webSocket,
    });
    copy.headers.set(name, value);
    return copy;
  }
}

import type { Context, MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import type { AppEnv } from "../app-env";
import type { Config } from "../config";
import type { ShieldTrace } from "../gateway/cache-status";
import { log, type LogLevel } from "../log";
import { writeRequestPoint } from "./metrics";

/**
 * Gives every request its configuration, its arrival time and a request id (Cloudflare's ray id
 * when there is one), returns the id in `x-request-id` so a user's report can be found in the
 * logs, and prints one structured JSON access-log line per request (Workers Logs indexes its
 * fields) from the values the handlers left in the context, and the same facts as one metrics data
 * point (./metrics.ts).
 */
export function requestContext(config: Config): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const startedAt = Date.now();
    const requestId = requestIdOf(c.req.raw);
    c.set("config", config);
    c.set("requestId", requestId);
    c.set("startedAt", startedAt);
    await next();
    setHeader(c, "x-request-id", requestId);
    const { level, ...line } = accessLogLine(c, Date.now() - startedAt);
    log(level, "request", line);
    writeRequestPoint(c.env.GATEWAY_METRICS, line, c.res.headers.get("x-edge-upstream"));
  };
}

/** The id of a request: Cloudflare's ray id when there is one, else a fresh UUID. */
export function requestIdOf(request: Request): string {
  return request.headers.get("cf-ray") ?? crypto.randomUUID();
}

/** The access-log record: who asked what, the response, the cache state and the time spent beyond the data center. */
function accessLogLine(c: Context<AppEnv>, durationMs: number) {
  return {
    level: (c.res.status >= 500 ? "error" : "info") as LogLevel,
    request_id: c.get("requestId"),
    method: c.req.method,
    // The route of the handler that gave the response (a gateway row's pattern, for instance).
    route: routePath(c),
    path: pathOf(c.req.url),
    status: c.res.status,
    cache: c.get("cache") ?? null,
    shield: shieldOf(c.get("shield")),
    miss_ms: c.get("missMs") ?? null,
    duration_ms: durationMs,
    colo: (c.req.raw.cf as { colo?: string } | undefined)?.colo ?? null,
  };
}

/** The shield's part for the log: what it did, or `fail-open` when the Worker went around it. */
function shieldOf(trace: ShieldTrace | undefined): string | null {
  return trace ? ("fault" in trace ? "fail-open" : trace.status) : null;
}

/** The path of a URL as sent (escapes kept), without parsing the whole URL. */
export function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const end = url.indexOf("?", start);
  return end === -1 ? url.slice(start) : url.slice(start, end);
}

/**
 * Sets a header on the response in place; a Durable Object's answer has immutable headers and is
 * copied first. (Assigning `c.res` copies the response, so the common case must not.)
 */
function setHeader(c: Context<AppEnv>, name: string, value: string): void {
  try {
    c.res.headers.set(name, value);
  } catch {
    const response = c.res;
    c.res = new Response(response.body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
      webSocket: response.webSocket,
    });
    c.res.headers.set(name, value);
  }
}

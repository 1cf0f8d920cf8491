import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app";
import type { Config } from "../config";

/**
 * Gives every request its configuration and a request id (Cloudflare's ray id when there is one),
 * and returns the id in `x-request-id` so a user's report can be found in the logs.
 */
export function requestContext(config: Config): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const requestId = c.req.header("cf-ray") ?? crypto.randomUUID();
    c.set("config", config);
    c.set("requestId", requestId);
    await next();
    c.res = withHeader(c.res, "x-request-id", requestId);
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

/**
 * CORS for public chain data, on every gateway response (answers, errors, preflights): any origin
 * may read it. The headers are set on the response after the handler, in place: hono's `cors`
 * sets them before, on a response it creates, which makes Hono copy every response a handler
 * then returns.
 */
import type { MiddlewareHandler } from "hono";

export interface PublicCorsOptions {
  allowMethods: readonly string[];
  /** Response headers a browser may read. */
  exposeHeaders: readonly string[];
  /** How long a browser may keep a preflight's answer. */
  maxAgeSeconds: number;
}

export function publicCors(options: PublicCorsOptions): MiddlewareHandler {
  const methods = options.allowMethods.join(",");
  const exposed = options.exposeHeaders.join(",");
  const maxAge = String(options.maxAgeSeconds);
  return async (c, next) => {
    if (c.req.method === "OPTIONS") {
      const headers = new Headers({
        "access-control-allow-origin": "*",
        "access-control-allow-methods": methods,
        "access-control-expose-headers": exposed,
        "access-control-max-age": maxAge,
      });
      // A preflight may send any header it asks for (If-None-Match, x-cosmos-block-height): nothing here is private.
      const asked = c.req.header("access-control-request-headers");
      if (asked) {
        headers.set(
          "access-control-allow-headers",
          asked
            .split(",")
            .map((name) => name.trim())
            .join(","),
        );
        headers.set("vary", "Access-Control-Request-Headers");
      }
      return new Response(null, { status: 204, headers });
    }
    await next();
    c.res.headers.set("access-control-allow-origin", "*");
    c.res.headers.set("access-control-expose-headers", exposed);
  };
}

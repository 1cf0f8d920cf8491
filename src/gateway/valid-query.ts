/** Validation as middleware: the request's route row, parameters and height header, or the 400/404. */
import type { MiddlewareHandler } from "hono";
import { pathOf } from "../middleware/request-context";
import type { GatewayEnv } from "./gateway-env";
import { HEIGHT_HEADER, MOUNT, findRoute, validateQuery, type CompiledRoute } from "./match";

/**
 * Matches the request against `routes` and hands the handler the validated query in `c.var.query`;
 * names the matched pattern in `c.var.route` first, so a refused parameter is logged under its route.
 */
export function validQuery(routes: readonly CompiledRoute[]): MiddlewareHandler<GatewayEnv> {
  return async (c, next) => {
    const url = c.req.url;
    const path = pathOf(url).slice(MOUNT.length);
    const queryStart = url.indexOf("?");
    const compiled = findRoute(routes, path);
    c.set("route", compiled.pattern);
    c.set("query", validateQuery(compiled, path, queryStart === -1 ? "" : url.slice(queryStart), c.req.header(HEIGHT_HEADER) ?? null));
    await next();
  };
}

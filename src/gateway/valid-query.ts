/**
 * Validation as middleware: the parameters, query and height header of a request the router gave one row, or the 400.
 */
import type { MiddlewareHandler } from "hono";
import { basePath } from "hono/route";
import { pathOf } from "../middleware/request-context";
import type { GatewayEnv } from "./gateway-env";
import { HEIGHT_HEADER, noSuchQuery, requirePlainPath, validateQuery, type CompiledRoute } from "./match";

/** Hands the handler the validated query of `row` in `c.var.query`. */
export function validQuery(row: CompiledRoute): MiddlewareHandler<GatewayEnv> {
  return async (c, next) => {
    const url = c.req.url;
    const path = pathOf(url);
    // The router matched the decoded path; the path as sent must be plain too.
    requirePlainPath(path);
    const queryStart = url.indexOf("?");
    c.set(
      "query",
      validateQuery(
        row,
        path.slice(basePath(c).length),
        queryStart === -1 ? "" : url.slice(queryStart),
        c.req.header(HEIGHT_HEADER) ?? null,
      ),
    );
    await next();
  };
}

/** The handler of a read that no row has: the 400 for a path that is not plain, else the 404. */
export function refuseUnknownQuery(c: { req: { url: string } }): never {
  const path = pathOf(c.req.url);
  requirePlainPath(path);
  throw noSuchQuery(path);
}

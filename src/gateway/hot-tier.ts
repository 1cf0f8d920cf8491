/**
 * The isolate-memory tier, the first handler of every row: a request whose URL (and height
 * header) is the key of a fresh hot entry is answered at once, before it is parsed or validated.
 * Entries are stored only under the canonical form of a validated request (`queryKeys`), so a
 * URL that finds one would pass validation unchanged; a request in any other form goes on to
 * validation and the Cache API.
 */
import type { MiddlewareHandler } from "hono";
import type { GatewayEnv } from "./gateway-env";
import { hotFresh } from "./hot-cache";
import { HEIGHT_HEADER } from "./match";
import { respond } from "./respond";

export function serveHot(): MiddlewareHandler<GatewayEnv> {
  return async (c, next) => {
    const height = c.req.header(HEIGHT_HEADER);
    const entry = hotFresh(height === undefined ? c.req.url : `${c.req.url}#${height}`, c.get("startedAt"));
    if (!entry) return next();
    return respond(c, { status: "HIT", entry });
  };
}

/**
 * Guards for any route that a page of this origin uses: reached over HTTPS (plain http only on a
 * loopback host), and from no page of another origin.
 */
import type { MiddlewareHandler } from "hono";
import { permissionDenied } from "../errors";
import { isHttpsOrLoopback } from "./loopback";

/** Refuses a request that reached the server over plain http from a non-loopback host (403 `INSECURE_TRANSPORT`). */
export const secureTransport: MiddlewareHandler = async (c, next) => {
  if (!isHttpsOrLoopback(new URL(c.req.url))) {
    throw permissionDenied(
      "INSECURE_TRANSPORT",
      "This endpoint is served over HTTPS only (plain http only on a loopback host)",
    );
  }
  await next();
};

/** Refuses a browser request sent by a page of another origin (403 `CROSS_ORIGIN`). */
export const sameOriginBrowser: MiddlewareHandler = async (c, next) => {
  requireSameOriginBrowser(c.req.raw.headers, new URL(c.req.url).origin);
  await next();
};

/**
 * Refuses a browser request sent by a page of another origin (the `Origin` and `Sec-Fetch-Site`
 * headers browsers add); requests without them come from non-browser clients and pass.
 */
export function requireSameOriginBrowser(headers: Headers, serverOrigin: string): void {
  const origin = headers.get("origin");
  const site = headers.get("sec-fetch-site");
  if ((origin !== null && origin !== serverOrigin) || site === "cross-site" || site === "same-site") {
    throw permissionDenied("CROSS_ORIGIN", `Only pages of ${serverOrigin} may use this endpoint`, {
      origin: origin ?? "",
    });
  }
}

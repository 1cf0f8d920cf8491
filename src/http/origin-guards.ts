/**
 * Guards for any route that a page of this origin uses: reached over HTTPS (plain http only on a
 * loopback host), and from no page of another origin. The Origin rule is decided here once:
 * - a request whose `Origin` (or `Sec-Fetch-Site`) names another site is refused; origins are
 *   compared whole, so `https://edge.test.attacker.example` is not `https://edge.test`;
 * - a state change made with a cookie (the dashboard's session) must carry this origin's `Origin`:
 *   without one it is refused, since the cookie would be sent by any page;
 * - a request with no cookie (a wallet, a bearer-key client) may come without `Origin`.
 */
import type { MiddlewareHandler } from "hono";
import { permissionDenied } from "../errors";
import { isHttpsOrLoopback } from "./loopback";

/** Refuses (403 `INSECURE_TRANSPORT`) a request that reached the server over plain http from a non-loopback host. */
export function requireSecureTransport(url: URL): void {
  if (!isHttpsOrLoopback(url)) {
    throw permissionDenied(
      "INSECURE_TRANSPORT",
      "This endpoint is served over HTTPS only (plain http only on a loopback host)",
    );
  }
}

/** {@link requireSecureTransport} as a middleware. */
export const secureTransport: MiddlewareHandler = async (c, next) => {
  requireSecureTransport(new URL(c.req.url));
  await next();
};

/** Refuses a browser request sent by a page of another origin (403 `CROSS_ORIGIN`). */
export const sameOriginBrowser: MiddlewareHandler = async (c, next) => {
  requireSameOriginBrowser(c.req.raw.headers, new URL(c.req.url).origin);
  await next();
};

/**
 * The one Origin rule (see the top of this file). `cookieChange`: the request changes state with a
 * cookie (the dashboard's session), so it must carry this origin's `Origin`; otherwise a request
 * without the headers browsers add passes (it carries no ambient credential).
 */
export function requireSameOriginBrowser(headers: Headers, serverOrigin: string, cookieChange = false): void {
  const origin = headers.get("origin");
  const site = headers.get("sec-fetch-site");
  if (
    (origin === null && cookieChange) ||
    (origin !== null && origin !== serverOrigin) ||
    site === "cross-site" ||
    site === "same-site"
  ) {
    throw permissionDenied("CROSS_ORIGIN", `Only pages of ${serverOrigin} may use this endpoint`, {
      origin: origin ?? "",
    });
  }
}

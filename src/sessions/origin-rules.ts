/**
 * The same-origin and HTTPS rules of the pairing protocol: the page, its session's origin and the
 * wallet's relay URL are all this server's own origin, reached over HTTPS (plain http only on a
 * loopback host).
 */
import type { MiddlewareHandler } from "hono";
import { invalidArgument, permissionDenied } from "../errors";
import { isLoopbackHost } from "../http/loopback";

/** True when `url` is https, or http on a loopback host. */
export function isSecureOrLocal(url: URL): boolean {
  return url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname));
}

/** Refuses a request that reached the server over plain http from a non-loopback host (403). */
export const secureTransport: MiddlewareHandler = async (c, next) => {
  if (!isSecureOrLocal(new URL(c.req.url))) {
    throw permissionDenied("INSECURE_TRANSPORT", "Session endpoints are served over HTTPS only (plain http only on a loopback host)");
  }
  await next();
};

/** Refuses a browser request sent by a page of another origin (403). */
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
    throw permissionDenied("CROSS_ORIGIN", `Only pages of ${serverOrigin} may use these sessions`, { origin: origin ?? "" });
  }
}

/** Checks `origin.url` of a create: a bare origin, equal to this server's. */
export function checkSessionOrigin(value: string, serverOrigin: string): string {
  const url = parseUrl(value, "origin.url");
  if (url.username || url.password || url.pathname !== "/" || url.search || url.hash || value.replace(/\/$/, "") !== url.origin) {
    throw invalidArgument("INVALID_ORIGIN", "origin.url must be a bare origin such as https://app.example", { field: "origin.url" });
  }
  if (!isSecureOrLocal(url)) {
    throw invalidArgument("INSECURE_ORIGIN", "origin.url must use https (plain http only on a loopback host)", { field: "origin.url" });
  }
  if (url.origin !== serverOrigin) {
    throw invalidArgument("ORIGIN_MISMATCH", `origin.url must be this server's origin, ${serverOrigin}`, { field: "origin.url" });
  }
  return url.origin;
}

/** Checks `relay_url` of a create: exactly this server's confirm URL for the session. */
export function checkRelayUrl(value: string, expected: string): void {
  const url = parseUrl(value, "relay_url");
  if (url.username || url.password) {
    throw invalidArgument("INVALID_RELAY_URL", "relay_url must not carry credentials", { field: "relay_url" });
  }
  if (!isSecureOrLocal(url)) {
    throw invalidArgument("INSECURE_ORIGIN", "relay_url must use https (plain http only on a loopback host)", { field: "relay_url" });
  }
  if (url.href !== expected || value !== expected) {
    throw invalidArgument("INVALID_RELAY_URL", `relay_url must be exactly ${expected}`, { field: "relay_url" });
  }
}

function parseUrl(value: string, field: string): URL {
  try {
    return new URL(value);
  } catch {
    throw invalidArgument("INVALID_URL", `${field} is not an absolute URL`, { field });
  }
}

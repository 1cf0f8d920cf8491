/**
 * The same-origin and HTTPS rules of a session create: the session's origin and the wallet's
 * relay URL are this server's own origin, over HTTPS (plain http only on a loopback host). The
 * guards every route shares are in src/http/origin-guards.ts.
 */
import { invalidArgument } from "../errors";
import { isHttpsOrLoopback } from "../http/loopback";

/** Checks `origin.url` of a create: a bare origin, equal to this server's. */
export function checkSessionOrigin(value: string, serverOrigin: string): string {
  const url = parseUrl(value, "origin.url");
  if (
    url.username ||
    url.password ||
    url.pathname !== "/" ||
    url.search ||
    url.hash ||
    value.replace(/\/$/, "") !== url.origin
  ) {
    throw invalidArgument("INVALID_ORIGIN", "origin.url must be a bare origin such as https://app.example", {
      field: "origin.url",
    });
  }
  if (!isHttpsOrLoopback(url)) {
    throw invalidArgument("INSECURE_ORIGIN", "origin.url must use https (plain http only on a loopback host)", {
      field: "origin.url",
    });
  }
  if (url.origin !== serverOrigin) {
    throw invalidArgument("ORIGIN_MISMATCH", `origin.url must be this server's origin, ${serverOrigin}`, {
      field: "origin.url",
    });
  }
  return url.origin;
}

/** Checks `relay_url` of a create: exactly this server's confirm URL for the session. */
export function checkRelayUrl(value: string, expected: string): void {
  const url = parseUrl(value, "relay_url");
  if (url.username || url.password) {
    throw invalidArgument("INVALID_RELAY_URL", "relay_url must not carry credentials", { field: "relay_url" });
  }
  if (!isHttpsOrLoopback(url)) {
    throw invalidArgument("INSECURE_ORIGIN", "relay_url must use https (plain http only on a loopback host)", {
      field: "relay_url",
    });
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

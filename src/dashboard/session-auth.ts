/**
 * The dashboard session standing for a host API key: the host API's door (host-auth.ts) lets a
 * request through on a live session, and a state change only with a same-origin `Origin` too.
 */
import type { Context } from "hono";
import type { AppEnv } from "../app-env";
import { permissionDenied } from "../errors";
import { signedOut } from "./refusals";
import { cookieSessionId, hasSessionCookie } from "./session-cookie";
import { liveSession, type DashboardSession } from "./session-store";

const SAFE_METHODS = ["GET", "HEAD"];

/** Unix seconds now. */
export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The request's live dashboard session; throws a 401 when the cookie is missing, forged, expired or revoked. */
export async function requireSession(c: Context<AppEnv>): Promise<DashboardSession> {
  const signIn = c.get("config").access ? "access" : "key";
  const now = nowSeconds();
  const id = await cookieSessionId(c, now);
  const session = id === null ? null : await liveSession(c.env.ONBOARDING_INDEX, id, now);
  if (!session)
    throw signedOut("SESSION_INVALID", "The dashboard session has ended or was signed out: sign in again", signIn);
  return session;
}

/**
 * True when the request comes from a dashboard session (no Authorization header, the cookie), which
 * is then checked whole: live, and for a state change sent by a page of this origin (a cross-site
 * form post is refused even when the browser sent the cookie).
 */
export async function passesAsDashboard(c: Context<AppEnv>): Promise<boolean> {
  if (c.req.header("authorization") !== undefined || !hasSessionCookie(c)) return false;
  await requireSession(c);
  requireSameOriginChange(c);
  return true;
}

/** Refuses (403 `CROSS_ORIGIN`) a state change whose `Origin` is not this server's, or that has none. */
export function requireSameOriginChange(c: Context<AppEnv>): void {
  if (SAFE_METHODS.includes(c.req.method)) return;
  const server = new URL(c.req.url).origin;
  if (c.req.header("origin") !== server)
    throw permissionDenied("CROSS_ORIGIN", `Only pages of ${server} may change anything with a dashboard session`, {
      origin: c.req.header("origin") ?? "",
    });
}

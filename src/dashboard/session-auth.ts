/**
 * The dashboard session standing for a host API key: the host API's door (host-auth.ts) lets a
 * request through on a live session, over https (plain http only on loopback), behind Access only
 * with a valid Access JWT on that very request, and a state change only with this origin's `Origin`.
 */
import type { Context } from "hono";
import type { AppEnv } from "../app-env";
import { requireSameOriginBrowser, requireSecureTransport } from "../http/origin-guards";
import { accessValidUntil } from "./access";
import { signedOut } from "./refusals";
import { cookieSessionId, hasSessionCookie } from "./session-cookie";
import { liveSession, type DashboardSession } from "./session-store";

/** Unix seconds now. */
export const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * Until when (Unix seconds) the request's `Cf-Access-Jwt-Assertion` is valid; throws a 401
 * `ACCESS_JWT_INVALID` when it is missing or fails a check. Only when Access guards the dashboard.
 */
export async function requireAccessJwt(c: Context<AppEnv>): Promise<number> {
  const access = c.get("config").access!;
  const validUntil = await accessValidUntil(access, c.req.header("cf-access-jwt-assertion"));
  if (validUntil === null)
    throw signedOut(
      "ACCESS_JWT_INVALID",
      "No valid Cloudflare Access token came with the request: sign in through Access again",
      "access",
    );
  return validUntil;
}

/**
 * The request's live dashboard session; throws a 401: `SIGN_IN_REQUIRED` without the cookie,
 * `SESSION_INVALID` when it is forged, expired or revoked, and, behind Access, `ACCESS_JWT_INVALID`
 * when the request carries no valid Access JWT of its own.
 */
export async function requireSession(c: Context<AppEnv>): Promise<DashboardSession> {
  const signIn = c.get("config").access ? "access" : "key";
  if (signIn === "access") await requireAccessJwt(c);
  // Never signed in is not "signed out": the page asks a first visit to sign in, not to sign in again.
  if (!hasSessionCookie(c)) throw signedOut("SIGN_IN_REQUIRED", "Sign in to the dashboard first", signIn);
  const now = nowSeconds();
  const id = await cookieSessionId(c, now);
  const session = id === null ? null : await liveSession(c.env.ONBOARDING_INDEX, id, now);
  if (!session)
    throw signedOut("SESSION_INVALID", "The dashboard session has ended or was signed out: sign in again", signIn);
  return session;
}

/**
 * True when the request comes from a dashboard session (no Authorization header, the cookie), which
 * is then checked whole: over https, live, and sent by a page of this origin (a cross-site form
 * post is refused even when the browser sent the cookie).
 */
export async function passesAsDashboard(c: Context<AppEnv>): Promise<boolean> {
  if (c.req.header("authorization") !== undefined || !hasSessionCookie(c)) return false;
  requireSecureTransport(new URL(c.req.url));
  requireCookieOrigin(c);
  await requireSession(c);
  return true;
}

/** The Origin rule (src/http/origin-guards.ts) for a request made with the dashboard's cookie. */
export function requireCookieOrigin(c: Context<AppEnv>): void {
  const change = c.req.method !== "GET" && c.req.method !== "HEAD";
  requireSameOriginBrowser(c.req.raw.headers, new URL(c.req.url).origin, change);
}

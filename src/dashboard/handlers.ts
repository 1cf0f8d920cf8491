/**
 * The dashboard's own endpoints: sign in with a host API key (or through Cloudflare Access), the
 * session check the page starts with, and sign-out. Everything else the page reads and does goes
 * through the host API with the session standing for a key (session-auth.ts).
 */
import type { Context } from "hono";
import type { AppEnv } from "../app-env";
import { enforceRateLimit } from "../http/rate-limit";
import { isHostKey } from "../onboardings/http/host-auth";
import { SIGN_IN_LIMIT, signedOut } from "./refusals";
import { nowSeconds, requireAccessJwt, requireCookieOrigin, requireSession } from "./session-auth";
import { clearSessionCookie, cookieSessionId, setSessionCookie } from "./session-cookie";
import { liveSession, openSession, revokeSession, SESSION_SECONDS, type DashboardSession } from "./session-store";

type C = Context<AppEnv>;

/** What the page learns about its session. */
function sessionBody(c: C, session: DashboardSession): Response {
  return c.json(
    {
      via: session.via,
      expires_at: new Date(session.expiresAt * 1000).toISOString(),
      webhook_configured: c.get("config").hostWebhook !== null,
    },
    200,
    { "cache-control": "no-store" },
  );
}

/** `POST /dashboard/sign-in` (a form with `key`): a session for a valid host API key, rate-limited per client. */
export async function signIn(c: C): Promise<Response> {
  const config = c.get("config");
  requireCookieOrigin(c);
  if (config.access)
    throw signedOut("ACCESS_REQUIRED", "This dashboard is entered through Cloudflare Access, not with a key", "access");
  await enforceRateLimit(c, SIGN_IN_LIMIT);
  const form = await c.req.formData().catch(() => null);
  const key = form?.get("key");
  if (typeof key !== "string" || key === "")
    throw signedOut("MISSING_CREDENTIALS", "Send a host API key in the form field `key`", "key");
  if (config.hostApiKeys.length === 0 || !(await isHostKey(config.hostApiKeys, key)))
    throw signedOut("INVALID_CREDENTIALS", "That is not a host API key of this deployment", "key");
  const now = nowSeconds();
  const session = await openSession(c.env.ONBOARDING_INDEX, "key", now, now + SESSION_SECONDS);
  await setSessionCookie(c, session.id, session.expiresAt);
  return sessionBody(c, session);
}

/**
 * `GET /dashboard/session`: the live session. Behind Access, a valid `Cf-Access-Jwt-Assertion` is
 * required every time, and opens a session when there is none (ending when the JWT does, at most 12 hours).
 */
export async function currentSession(c: C): Promise<Response> {
  if (!c.get("config").access) return sessionBody(c, await requireSession(c));
  const validUntil = await requireAccessJwt(c);
  const now = nowSeconds();
  const id = await cookieSessionId(c, now);
  const live = id === null ? null : await liveSession(c.env.ONBOARDING_INDEX, id, now);
  if (live) return sessionBody(c, live);
  const session = await openSession(c.env.ONBOARDING_INDEX, "access", now, Math.min(validUntil, now + SESSION_SECONDS));
  await setSessionCookie(c, session.id, session.expiresAt);
  return sessionBody(c, session);
}

/** `POST /dashboard/sign-out`: the session is revoked (its token refused from now on) and the cookie removed. */
export async function signOut(c: C): Promise<Response> {
  requireCookieOrigin(c);
  const session = await requireSession(c);
  await revokeSession(c.env.ONBOARDING_INDEX, session.id, nowSeconds());
  clearSessionCookie(c);
  return c.body(null, 204);
}

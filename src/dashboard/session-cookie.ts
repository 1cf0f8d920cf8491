/**
 * The dashboard's session cookie: `HttpOnly`, `SameSite=Strict`, `Path=/`, `Secure` on https,
 * holding a signed, expiring token (`<session id>.<expiry>` with its HMAC), never the key. The
 * token is signed with the host API keys themselves, so a key rotation also ends every session.
 * Without HOST_API_KEYS there is no secret to sign with, so the dashboard refuses (503, naming the
 * variable) rather than sign with a public constant, Access or not.
 */
import type { Context } from "hono";
import { deleteCookie, getSignedCookie, setSignedCookie } from "hono/cookie";
import type { AppEnv } from "../app-env";
import { hostApiNotConfigured } from "../onboardings/http/host-api-refusals";

/** The cookie's name. */
const SESSION_COOKIE = "dashboard_session";

function secretOf(c: Context<AppEnv>): string {
  const keys = c.get("config").hostApiKeys;
  if (keys.length === 0) throw hostApiNotConfigured();
  return `dashboard-session:${keys.join(",")}`;
}
const isHttps = (c: Context<AppEnv>) => new URL(c.req.url).protocol === "https:";

/** Sets the cookie for session `id`, ending at `expiresAt` (Unix seconds). */
export async function setSessionCookie(c: Context<AppEnv>, id: string, expiresAt: number): Promise<void> {
  await setSignedCookie(c, SESSION_COOKIE, `${id}.${expiresAt}`, secretOf(c), {
    httpOnly: true,
    secure: isHttps(c),
    sameSite: "Strict",
    path: "/",
    expires: new Date(expiresAt * 1000),
  });
}

/** Removes the cookie from the browser (the session itself is revoked in D1). */
export function clearSessionCookie(c: Context<AppEnv>): void {
  deleteCookie(c, SESSION_COOKIE, { path: "/", httpOnly: true, secure: isHttps(c), sameSite: "Strict" });
}

/** Whether the request carries the cookie at all (valid or not). */
export const hasSessionCookie = (c: Context<AppEnv>) => (c.req.header("cookie") ?? "").includes(`${SESSION_COOKIE}=`);

/** The session id the cookie names while its signature holds and its expiry is after `now`; null otherwise. */
export async function cookieSessionId(c: Context<AppEnv>, now: number): Promise<string | null> {
  const value = await getSignedCookie(c, secretOf(c), SESSION_COOKIE);
  if (typeof value !== "string") return null;
  const [id, expiry] = value.split(".");
  return id && Number(expiry) > now ? id : null;
}

/**
 * Cloudflare Access in front of the dashboard: the `Cf-Access-Jwt-Assertion` JWT that Access adds
 * to every request it lets through, verified with `jose` against the team's published keys
 * (`<team domain>/cdn-cgi/access/certs`): its signature, `aud`, `exp` (30 s of clock tolerance) and issuer.
 */
import { createRemoteJWKSet, jwtVerify } from "jose";
import type { AccessSettings } from "../config";

// One key set per team domain per isolate: jose keeps the keys it fetched and fetches again for an unknown key id.
const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

/** Until when (Unix seconds) the request's Access JWT is valid; null when it is missing or fails any check. */
export async function accessValidUntil(settings: AccessSettings, token: string | undefined): Promise<number | null> {
  if (!token) return null;
  let keys = keySets.get(settings.teamDomain);
  if (!keys) {
    keys = createRemoteJWKSet(new URL("/cdn-cgi/access/certs", settings.teamDomain));
    keySets.set(settings.teamDomain, keys);
  }
  try {
    const { payload } = await jwtVerify(token, keys, {
      issuer: settings.teamDomain,
      audience: settings.audience,
      algorithms: ["RS256"],
      requiredClaims: ["exp"],
      // Access's edge and this Worker keep separate clocks: a token is taken up to 30 s either side of its times.
      clockTolerance: 30,
    });
    return payload.exp ?? null;
  } catch {
    return null;
  }
}

/**
 * The dashboard behind Cloudflare Access: a server of its own with ACCESS_TEAM_DOMAIN pointed at a
 * key server this test starts (the `/cdn-cgi/access/certs` shape), and JWTs the test signs with
 * jose as Access would. A valid token opens a session (in Chromium, the header added as Access's
 * edge adds it) whose cookie reaches the host API only beside a valid token of its own; a wrong
 * `aud`, an expired token, another issuer, a key the team does not publish, or no token at all is
 * a 401 in the one error shape, and key sign-in is off.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { openBrowser } from "./helpers/browser.ts";
import { assertCleanDashboard, expectNoSidewaysScroll, WIDTHS } from "./helpers/dashboard.ts";
import { startWranglerDev, type WranglerDev } from "./helpers/wrangler-dev.ts";

const AUDIENCE = "a1b2c3d4e5f6-dashboard-aud";
let team: { server: Server; url: string; key: CryptoKey; kid: string };
let dev: WranglerDev;

beforeAll(async () => {
  const { publicKey, privateKey } = await generateKeyPair("RS256");
  const kid = "team-key-1";
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" };
  const server = createServer((request, response) => {
    if (request.url !== "/cdn-cgi/access/certs") return response.writeHead(404).end();
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  team = { server, url, key: privateKey, kid };
  dev = await startWranglerDev({
    UPSTREAM_URLS: inject("devnetUrl"),
    HOST_API_KEYS: inject("hostApiKey"),
    ACCESS_TEAM_DOMAIN: url,
    ACCESS_AUD: AUDIENCE,
  });
});

afterAll(async () => {
  await dev?.stop();
  await new Promise((resolve) => team?.server.close(resolve));
});

/** A JWT as Access signs it: RS256 with the team's key, its `kid`, issuer, audience and expiry. */
async function accessJwt(
  claims: { aud?: string; iss?: string; exp?: number } = {},
  key: CryptoKey = team.key,
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ email: "support@host.example", type: "app" })
    .setProtectedHeader({ alg: "RS256", kid: team.kid })
    .setIssuer(claims.iss ?? team.url)
    .setAudience(claims.aud ?? AUDIENCE)
    .setSubject("user-1")
    .setIssuedAt(now - 60)
    .setExpirationTime(claims.exp ?? now + 3600)
    .sign(key);
}

const session = (token?: string) =>
  fetch(`${dev.url}/dashboard/session`, { headers: token ? { "cf-access-jwt-assertion": token } : {} });

describe("the dashboard behind Cloudflare Access", () => {
  it("refuses no token, a wrong aud, an expired token, another issuer and a wrong key with a 401", async () => {
    const { privateKey: stranger } = await generateKeyPair("RS256");
    const past = Math.floor(Date.now() / 1000) - 120;
    const refused = {
      "no token": await session(),
      "wrong aud": await session(await accessJwt({ aud: "another-application" })),
      expired: await session(await accessJwt({ exp: past })),
      "another issuer": await session(await accessJwt({ iss: "https://other-team.cloudflareaccess.com" })),
      "wrong key": await session(await accessJwt({}, stranger)),
      "not a JWT": await session("not.a.jwt"),
    };
    for (const [what, response] of Object.entries(refused)) {
      expect(response.status, what).toBe(401);
      const body = (await response.json()) as { code: number; details: { reason: string }[] };
      expect(body.code, what).toBe(16);
      expect(body.details[0]!.reason, what).toBe("ACCESS_JWT_INVALID");
      expect(response.headers.get("set-cookie"), what).toBeNull();
    }
    const keyForm = await fetch(`${dev.url}/dashboard/sign-in`, {
      method: "POST",
      headers: { origin: dev.url },
      body: new URLSearchParams({ key: inject("hostApiKey") }),
    });
    expect(keyForm.status).toBe(401);
    expect((await keyForm.json()).details[0].reason).toBe("ACCESS_REQUIRED");
  });

  it("a valid token opens a session whose cookie reads the host API only beside a valid token", async () => {
    const answer = await session(await accessJwt());
    expect(answer.status).toBe(200);
    expect((await answer.json()).via).toBe("access");
    const cookie = answer.headers.get("set-cookie")!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    const list = (token?: string) =>
      fetch(`${dev.url}/api/onboardings`, {
        headers: { cookie: cookie.split(";")[0]!, ...(token ? { "cf-access-jwt-assertion": token } : {}) },
      });
    expect((await list(await accessJwt())).status).toBe(200);
    // Removed from the Access policy, or the token expired: the cookie alone opens nothing.
    for (const refused of [await list(), await list(await accessJwt({ exp: Math.floor(Date.now() / 1000) - 120 }))]) {
      expect(refused.status).toBe(401);
      expect((await refused.json()).details[0].reason).toBe("ACCESS_JWT_INVALID");
    }
  });

  it.each(WIDTHS)("in Chromium at $name, the page behind Access shows the list without a key", async ({ viewport }) => {
    const browser = await openBrowser(viewport, undefined, { base: dev.url });
    try {
      // What Access's edge adds to every request it lets through.
      await browser.context.setExtraHTTPHeaders({ "cf-access-jwt-assertion": await accessJwt() });
      await browser.page.goto(`${dev.url}/dashboard/`);
      await browser.page.getByRole("heading", { name: "Onboardings", level: 2 }).waitFor();
      expect(await browser.page.getByLabel("Host API key").count()).toBe(0);
      await expectNoSidewaysScroll(browser.page);
      assertCleanDashboard(browser.guard);
    } finally {
      await browser.close();
    }
  });
});

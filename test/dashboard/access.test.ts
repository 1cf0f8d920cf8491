/**
 * The dashboard behind Cloudflare Access, in workerd: the team's keys served at the network edge
 * (a stubbed `fetch` answering `<team>/cdn-cgi/access/certs`), JWTs signed here as Access signs
 * them. Every request a session lets through to the host API carries a valid Access JWT of its
 * own; the session's cookie ends no later than its token; without HOST_API_KEYS nothing is signed.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from "jose";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { buildApp } from "../../src/app";
import { readConfig } from "../../src/config";
import { ORIGIN, errorReason } from "../helpers/sessions";

// A team of this file's own: the key sets are kept per team domain for the isolate's life.
const TEAM = `https://team-${crypto.randomUUID().slice(0, 8)}.cloudflareaccess.test`;
const AUDIENCE = "dashboard-aud-0123456789";
const app = buildApp(readConfig({ ...env, ACCESS_TEAM_DOMAIN: TEAM, ACCESS_AUD: AUDIENCE }));

let signingKey: CryptoKey;
let jwks: { keys: JWK[] };

beforeAll(async () => {
  const pair = await generateKeyPair("RS256");
  signingKey = pair.privateKey;
  jwks = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: "team-key-1", alg: "RS256", use: "sig" }] };
});

afterEach(() => vi.restoreAllMocks());

/** Serves the team's keys where Access publishes them; every other fetch goes on as it would. */
function serveTeamKeys(): void {
  const real = globalThis.fetch;
  vi.spyOn(globalThis, "fetch").mockImplementation((input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url === `${TEAM}/cdn-cgi/access/certs`) return Promise.resolve(Response.json(jwks));
    return real(input, init);
  });
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A JWT as Access signs it for this application, valid until `exp`. */
const accessJwt = (exp = nowSeconds() + 3600) =>
  new SignJWT({ email: "support@host.example" })
    .setProtectedHeader({ alg: "RS256", kid: "team-key-1" })
    .setIssuer(TEAM)
    .setAudience(AUDIENCE)
    .setIssuedAt(nowSeconds() - 60)
    .setExpirationTime(exp)
    .sign(signingKey);

async function send(target: ReturnType<typeof buildApp>, path: string, init: RequestInit = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await target.fetch(new Request(`${ORIGIN}${path}`, init), env, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

/** A session opened through Access: the cookie's `name=value` and the whole Set-Cookie line. */
async function accessSession(exp?: number): Promise<{ cookie: string; setCookie: string }> {
  const response = await send(app, "/dashboard/session", {
    headers: { "cf-access-jwt-assertion": await accessJwt(exp) },
  });
  expect(response.status).toBe(200);
  const setCookie = response.headers.get("set-cookie")!;
  return { cookie: setCookie.split(";")[0]!, setCookie };
}

describe("a dashboard session behind Access", () => {
  it("reaches the host API only while each request carries a valid Access JWT: without one, 401", async () => {
    serveTeamKeys();
    const { cookie } = await accessSession();
    const withToken = await send(app, "/api/onboardings", {
      headers: { cookie, "cf-access-jwt-assertion": await accessJwt() },
    });
    expect(withToken.status).toBe(200);
    for (const [what, headers] of [
      ["no Access JWT", { cookie }],
      ["an expired Access JWT", { cookie, "cf-access-jwt-assertion": await accessJwt(nowSeconds() - 120) }],
      ["a JWT that is not one", { cookie, "cf-access-jwt-assertion": "not.a.jwt" }],
    ] as const) {
      for (const path of ["/api/onboardings", "/api/overview", "/dashboard/session"]) {
        const refused = await send(app, path, { headers });
        expect(refused.status, `${what} ${path}`).toBe(401);
        expect(await errorReason(refused), `${what} ${path}`).toBe("ACCESS_JWT_INVALID");
      }
    }
  });

  it("accepts a token expired by less than the 30 s clock tolerance, and refuses one beyond it", async () => {
    serveTeamKeys();
    const { cookie } = await accessSession();
    const within = await send(app, "/api/onboardings", {
      headers: { cookie, "cf-access-jwt-assertion": await accessJwt(nowSeconds() - 10) },
    });
    expect(within.status).toBe(200);
    const beyond = await send(app, "/api/onboardings", {
      headers: { cookie, "cf-access-jwt-assertion": await accessJwt(nowSeconds() - 60) },
    });
    expect(beyond.status).toBe(401);
  });

  it("ends the session's cookie when its Access token ends, not 12 hours later", async () => {
    serveTeamKeys();
    const exp = nowSeconds() + 600;
    const { setCookie } = await accessSession(exp);
    const expires = Date.parse(/Expires=([^;]+)/.exec(setCookie)![1]!) / 1000;
    expect(expires).toBe(exp);
    const session = await send(app, "/dashboard/session", {
      headers: { cookie: setCookie.split(";")[0]!, "cf-access-jwt-assertion": await accessJwt() },
    });
    expect(((await session.json()) as { expires_at: string }).expires_at).toBe(new Date(exp * 1000).toISOString());
  });

  it("without HOST_API_KEYS, signs no cookie: 503 naming the variable", async () => {
    serveTeamKeys();
    const keyless = buildApp(readConfig({ ...env, ACCESS_TEAM_DOMAIN: TEAM, ACCESS_AUD: AUDIENCE, HOST_API_KEYS: "" }));
    const response = await send(keyless, "/dashboard/session", {
      headers: { "cf-access-jwt-assertion": await accessJwt() },
    });
    expect(response.status).toBe(503);
    const body = (await response.json()) as { message: string; details: { reason: string }[] };
    expect(body.details[0]!.reason).toBe("HOST_API_NOT_CONFIGURED");
    expect(body.message).toContain("HOST_API_KEYS");
    expect(response.headers.get("set-cookie")).toBeNull();
  });
});

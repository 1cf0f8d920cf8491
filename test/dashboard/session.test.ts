/**
 * The dashboard's sessions in workerd: key sign-in (rate-limited, every failure a 401 in the one
 * error shape, the key never in a cookie or a log line), the cookie's flags, the session standing
 * for a key in the host API's door (a state change only from this origin), and sign-out revoking
 * the token wherever a copy of it is.
 */
import { env } from "cloudflare:test";
import { generateSignedCookie } from "hono/cookie";
import { afterEach, describe, expect, it, vi } from "vitest";
import { HOST_KEYS } from "../host-settings";
import { ORIGIN, api, errorReason } from "../helpers/sessions";
import { accountAddress, createOnboarding } from "../onboardings/helpers";

afterEach(() => vi.restoreAllMocks());

/** A sign-in form post; `origin: ""` sends none. */
const signIn = (key: string, init: { ip?: string; origin?: string } = {}) =>
  api("/dashboard/sign-in", {
    method: "POST",
    headers: {
      ...(init.origin === "" ? {} : { origin: init.origin ?? ORIGIN }),
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ key }),
    ...(init.ip ? { ip: init.ip } : {}),
  });

/** The `name=value` part of a response's session cookie. */
async function signedInCookie(): Promise<string> {
  const response = await signIn(HOST_KEYS[0]);
  expect(response.status).toBe(200);
  return response.headers.get("set-cookie")!.split(";")[0]!;
}

describe("signing in to the dashboard", () => {
  it("sets an HttpOnly, Secure, SameSite=Strict cookie for 12 hours with a signed token, never the key", async () => {
    const logged: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: string) => void logged.push(line));
    const response = await signIn(HOST_KEYS[1]);
    expect(response.status).toBe(200);
    const cookie = response.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^dashboard_session=[^;]+; /);
    for (const flag of ["HttpOnly", "Secure", "SameSite=Strict", "Path=/"]) expect(cookie).toContain(flag);
    const expires = Date.parse(/Expires=([^;]+)/.exec(cookie)![1]!);
    expect(expires - Date.now()).toBeGreaterThan(12 * 3_600_000 - 60_000);
    expect(expires - Date.now()).toBeLessThanOrEqual(12 * 3_600_000);
    for (const key of HOST_KEYS) {
      expect(cookie).not.toContain(key);
      expect(logged.join("\n")).not.toContain(key);
    }
    expect(response.headers.get("cache-control")).toBe("no-store");
  });

  it.each([
    ["a wrong key", new URLSearchParams({ key: "not-a-key-not-a-key-not-a-key-0000" }), "INVALID_CREDENTIALS"],
    ["no key", new URLSearchParams(), "MISSING_CREDENTIALS"],
    ["a JSON body", JSON.stringify({ key: HOST_KEYS[0] }), "MISSING_CREDENTIALS"],
  ])("refuses %s with a 401 in the one error shape and no cookie", async (_what, body, reason) => {
    const response = await api("/dashboard/sign-in", { method: "POST", headers: { origin: ORIGIN }, body });
    expect(response.status).toBe(401);
    expect(await errorReason(response)).toBe(reason);
    expect(response.headers.get("set-cookie")).toBeNull();
  });

  it("refuses a sign-in from another origin, from one that only begins with this one, or with none", async () => {
    for (const origin of ["https://attacker.example", `${ORIGIN}.attacker.example`, ""]) {
      const response = await signIn(HOST_KEYS[0], { origin });
      expect(response.status, origin).toBe(403);
      expect(await errorReason(response), origin).toBe("CROSS_ORIGIN");
      expect(response.headers.get("set-cookie"), origin).toBeNull();
    }
  });

  it("refuses a key posted over plain http to a host that is not loopback, and takes it on loopback", async () => {
    const form = () => ({
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ key: HOST_KEYS[0] }),
    });
    const plain = await api("http://edge.test/dashboard/sign-in", {
      ...form(),
      headers: { ...form().headers, origin: "http://edge.test" },
    });
    expect(plain.status).toBe(403);
    expect(await errorReason(plain)).toBe("INSECURE_TRANSPORT");
    expect(plain.headers.get("set-cookie")).toBeNull();
    const loopback = await api("http://127.0.0.1:8787/dashboard/sign-in", {
      ...form(),
      headers: { ...form().headers, origin: "http://127.0.0.1:8787" },
    });
    expect(loopback.status).toBe(200);
    expect(loopback.headers.get("set-cookie")).not.toMatch(/Secure/);
  });

  it("refuses a session's cookie sent to the host API over plain http to a host that is not loopback", async () => {
    const cookie = await signedInCookie();
    const plain = await api("http://edge.test/api/onboardings", { headers: { cookie } });
    expect(plain.status).toBe(403);
    expect(await errorReason(plain)).toBe("INSECURE_TRANSPORT");
  });

  it("rate-limits sign-ins: the 11th in a minute from one client is refused before its key is looked at", async () => {
    // Fixed 60 s windows: a run that straddles a window's end starts again with a new client.
    const window = () => Math.floor(Date.now() / 60_000);
    let ip = "";
    let statuses: number[] = [];
    for (;;) {
      ip = `203.0.113.9-${crypto.randomUUID()}`;
      const started = window();
      statuses = [];
      for (let i = 0; i < 10; i++)
        statuses.push((await signIn(`wrong-key-${i}-0123456789abcdef0123456789`, { ip })).status);
      statuses.push((await signIn(HOST_KEYS[0], { ip })).status);
      if (window() === started) break;
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses[10]).toBe(429);
    expect((await signIn(HOST_KEYS[0], { ip: "192.0.2.8" })).status).toBe(200);
  });
});

describe("the session in the host API's door", () => {
  it("reads the host API with the cookie, and changes state only with this origin's Origin", async () => {
    const cookie = await signedInCookie();
    expect((await api("/api/onboardings", { headers: { cookie } })).status).toBe(200);
    expect((await api("/dashboard/session", { headers: { cookie } })).status).toBe(200);
    const { id } = await createOnboarding({ operator: accountAddress() });
    const cancel = (headers: Record<string, string>) =>
      api(`/api/onboardings/${id}/cancel`, { method: "POST", headers: { cookie, ...headers } });
    for (const headers of [
      {},
      { origin: "https://attacker.example" },
      { origin: "null" },
      // Begins with this origin and is another: origins are compared whole, never by prefix.
      { origin: `${ORIGIN}.attacker.example` },
      { origin: `${ORIGIN}:8443` },
      { origin: ORIGIN, "sec-fetch-site": "same-site" },
    ] as Record<string, string>[]) {
      const refused = await cancel(headers);
      expect(refused.status).toBe(403);
      expect(await errorReason(refused)).toBe("CROSS_ORIGIN");
    }
    const created = await api("/api/onboardings", {
      method: "POST",
      headers: { cookie, origin: ORIGIN, "content-type": "application/json" },
      body: JSON.stringify({ operator: accountAddress(), label: "from the desk" }),
    });
    expect(created.status).toBe(201);
    expect((await cancel({ origin: ORIGIN })).status).toBe(200);
  });

  it("refuses a forged, an expired and a signed-out token with 401 SESSION_INVALID", async () => {
    const cookie = await signedInCookie();
    const [name, value] = cookie.split("=") as [string, string];
    const token = decodeURIComponent(value);
    const [id] = token.split(".");
    const secret = `dashboard-session:${HOST_KEYS.join(",")}`;
    const past = Math.floor(Date.now() / 1000) - 1;
    const expired = (await generateSignedCookie(name, `${id}.${past}`, secret)).split(";")[0]!;
    const forged = `${name}=${encodeURIComponent(`${id}.${past + 86_400}.${token.split(".").at(-1)}`)}`;
    for (const bad of [expired, forged]) {
      const response = await api("/api/onboardings", { headers: { cookie: bad } });
      expect(response.status).toBe(401);
      expect(await errorReason(response)).toBe("SESSION_INVALID");
    }
    const signOut = await api("/dashboard/sign-out", { method: "POST", headers: { cookie, origin: ORIGIN } });
    expect(signOut.status).toBe(204);
    expect(signOut.headers.get("set-cookie")).toMatch(/dashboard_session=;.*Max-Age=0/);
    for (const path of ["/api/onboardings", "/dashboard/session"]) {
      const after = await api(path, { headers: { cookie } });
      expect(after.status).toBe(401);
      expect(await errorReason(after)).toBe("SESSION_INVALID");
    }
    const row = await env.ONBOARDING_INDEX.prepare("SELECT revoked_at FROM dashboard_sessions WHERE id = ?")
      .bind(id)
      .first<{ revoked_at: number | null }>();
    expect(row?.revoked_at).not.toBeNull();
  });

  it("answers the session check without a cookie with 401 SIGN_IN_REQUIRED (never signed in, not ended)", async () => {
    const response = await api("/dashboard/session");
    expect(response.status).toBe(401);
    const body = (await response.json()) as { details: { reason: string; metadata: Record<string, string> }[] };
    expect(body.details[0]).toMatchObject({ reason: "SIGN_IN_REQUIRED", metadata: { sign_in: "key" } });
  });
});

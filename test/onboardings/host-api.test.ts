import { createExecutionContext, env, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { buildApp } from "../../src/app";
import { readConfig } from "../../src/config";
import { mintOnboardingId } from "../../src/protocol/index";
import { HOST_KEYS } from "../host-settings";
import { ORIGIN, api, errorReason } from "../helpers/sessions";
import { accountAddress, bearer, createOnboarding, host, hostPost } from "./helpers";

const operator = () => accountAddress();

afterEach(() => vi.restoreAllMocks());

describe("the host API's door", () => {
  it("accepts every key of a rotation, in the Authorization header only", async () => {
    for (const key of HOST_KEYS) {
      const response = await hostPost("", { operator: operator() }, bearer(key));
      expect(response.status).toBe(201);
    }
  });

  it.each([
    ["no Authorization header", {}, "", "MISSING_CREDENTIALS"],
    ["a wrong key", { authorization: "Bearer not-a-key-not-a-key-not-a-key-0000" }, "", "INVALID_CREDENTIALS"],
    ["a known key with another scheme", { authorization: `Basic ${HOST_KEYS[0]}` }, "", "INVALID_CREDENTIALS"],
    ["a key one character short", { authorization: `Bearer ${HOST_KEYS[0].slice(0, -1)}` }, "", "INVALID_CREDENTIALS"],
    ["the key in the query string only", {}, `?api_key=${HOST_KEYS[0]}`, "CREDENTIALS_IN_URL"],
    [
      "the key in the query string with a wrong header",
      { authorization: "Bearer not-a-key-not-a-key-not-a-key-0000" },
      `?token=${HOST_KEYS[0]}`,
      "CREDENTIALS_IN_URL",
    ],
    [
      "the key in the query string beside a valid header",
      bearer(),
      `?access_token=${HOST_KEYS[0]}`,
      "CREDENTIALS_IN_URL",
    ],
    ["the key in a cookie", { cookie: `key=${HOST_KEYS[0]}` }, "", "MISSING_CREDENTIALS"],
  ])(
    "refuses %s with 401, a Bearer challenge, no-store, and never echoes a key",
    async (_name, headers, query, reason) => {
      const logged: string[] = [];
      vi.spyOn(console, "log").mockImplementation((line: string) => void logged.push(line));
      const response = await api(`/api/onboardings/${mintOnboardingId()}${query}`, {
        headers: new Headers({ ...headers, authorization: (headers as Record<string, string>).authorization ?? "" }),
      });
      const text = await response.clone().text();
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer /);
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(await errorReason(response)).toBe(reason);
      for (const key of HOST_KEYS) {
        expect(text).not.toContain(key);
        expect(logged.join("\n")).not.toContain(key);
      }
    },
  );

  it(
    "compares the presented key with every configured key, as SHA-256 digests in constant time, whichever " + "matched",
    async () => {
      const compare = vi.spyOn(crypto.subtle, "timingSafeEqual");
      for (const authorization of [
        ...HOST_KEYS.map((key) => bearer(key).authorization),
        "Bearer not-a-key-not-a-key-not-a-key-0000",
      ]) {
        compare.mockClear();
        await api(`/api/onboardings/${mintOnboardingId()}`, { headers: { authorization } });
        expect(compare, authorization.slice(0, 20)).toHaveBeenCalledTimes(HOST_KEYS.length);
        for (const [a, b] of compare.mock.calls)
          expect([(a as ArrayBuffer).byteLength, (b as ArrayBuffer).byteLength]).toEqual([32, 32]);
      }
    },
  );

  it("sends no CORS headers, not even to a preflight", async () => {
    const preflight = await api("/api/onboardings", {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
    });
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
    const read = await host("", {
      method: "POST",
      headers: { origin: "https://evil.example", "content-type": "application/json" },
      body: JSON.stringify({ operator: operator() }),
    });
    expect(read.status).toBe(201);
    expect(read.headers.get("access-control-allow-origin")).toBeNull();
    expect(read.headers.get("cache-control")).toBe("no-store");
  });

  it("says which variable is missing when no keys are configured, while the page's settings still answer", async () => {
    const app = buildApp(readConfig({ ...env, HOST_API_KEYS: "" }));
    const ctx = createExecutionContext();
    const response = await app.fetch(
      new Request(`${ORIGIN}/api/onboardings`, { method: "POST", headers: bearer() }),
      env,
      ctx,
    );
    const settings = await app.fetch(new Request(`${ORIGIN}/api/config`), env, ctx);
    await waitOnExecutionContext(ctx);
    expect(response.status).toBe(503);
    const body = await response.json<{ message: string; details: { reason: string }[] }>();
    expect(body.details[0]!.reason).toBe("HOST_API_NOT_CONFIGURED");
    expect(body.message).toContain("npx wrangler secret put HOST_API_KEYS --env <environment>");
    expect(settings.status).toBe(200);
  });
});

describe("create: what it refuses", () => {
  it.each([
    ["a bad operator address", { operator: "hope1notanaddress" }, 400, "INVALID_FIELD"],
    ["another network's address", { operator: accountAddress("other") }, 400, "INVALID_FIELD"],
    ["an unknown field", { operator: accountAddress(), api_key: HOST_KEYS[0] }, 400, "INVALID_FIELD"],
    [
      "a plain-http return_url",
      { operator: accountAddress(), return_url: "http://host.example/back" },
      400,
      "INVALID_RETURN_URL",
    ],
    ["a return_url that is not a URL", { operator: accountAddress(), return_url: "back" }, 400, "INVALID_RETURN_URL"],
    [
      "a return_url with credentials",
      { operator: accountAddress(), return_url: "https://u:p@host.example/" },
      400,
      "INVALID_RETURN_URL",
    ],
    [
      "a reference over 128 characters",
      { operator: accountAddress(), reference: "r".repeat(129) },
      400,
      "INVALID_FIELD",
    ],
    ["a label with a control character", { operator: accountAddress(), label: "rack\n7" }, 400, "INVALID_FIELD"],
    [
      "a reference with a C1 control character",
      { operator: accountAddress(), reference: "order\u008542" },
      400,
      "INVALID_FIELD",
    ],
    ["a body that is not an object", [1, 2], 400, "MALFORMED_JSON"],
  ])("refuses %s", async (_name, body, status, reason) => {
    const response = await hostPost("", body);
    expect(response.status).toBe(status);
    expect(await errorReason(response)).toBe(reason);
  });

  it("refuses a body over the limit with 413 and a non-JSON body with 415", async () => {
    const big = await hostPost("", { operator: accountAddress(), label: "x".repeat(5000) });
    expect(big.status).toBe(413);
    const form = await host("", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "operator=x",
    });
    expect(form.status).toBe(415);
  });

  it("accepts the spellings an honest host sends: charset, spaces and uppercase around the address", async () => {
    const address = accountAddress();
    const response = await hostPost("", `{"operator": "  ${address.toUpperCase()} "}`, {
      "content-type": "application/json; charset=utf-8",
    });
    expect(response.status).toBe(201);
    const created = await response.json<{ operator: string; id: string; url: string }>();
    expect(created.operator).toBe(address);
    expect(created.id).toMatch(/^ob_[0-9a-f]{32}$/);
    expect(response.headers.get("location")).toBe(created.url);
  });

  it("answers 400 for a malformed id and 404 for an unknown one, and cancel and events likewise", async () => {
    for (const path of ["", "/cancel", "/events"]) {
      const method = path === "/cancel" ? "POST" : "GET";
      expect(await errorReason(await host(`/ob_XYZ${path}`, { method }))).toBe("INVALID_ONBOARDING_ID");
      const unknown = await host(`/${mintOnboardingId()}${path}`, { method });
      expect(unknown.status).toBe(404);
      expect(await errorReason(unknown)).toBe("ONBOARDING_NOT_FOUND");
    }
  });

  it("refuses query parameters other than credentials with 400", async () => {
    const created = await createOnboarding({ operator: accountAddress() });
    const response = await host(`/${created.id}?expand=events`);
    expect(response.status).toBe(400);
    expect(await errorReason(response)).toBe("UNKNOWN_QUERY_PARAMETER");
  });
});

describe("Idempotency-Key", () => {
  it("answers the same onboarding (200) for the same key and body, 409 for another body", async () => {
    const key = crypto.randomUUID();
    const body = { operator: accountAddress(), reference: "order-1" };
    const first = await hostPost("", body, { "idempotency-key": key });
    expect(first.status).toBe(201);
    const again = await hostPost("", JSON.stringify({ reference: "order-1", operator: body.operator }, null, 2), {
      "idempotency-key": key,
    });
    expect(again.status).toBe(200);
    expect((await again.json<{ id: string }>()).id).toBe((await first.json<{ id: string }>()).id);
    const other = await hostPost("", { ...body, reference: "order-2" }, { "idempotency-key": key });
    expect(other.status).toBe(409);
    expect(await errorReason(other)).toBe("IDEMPOTENCY_KEY_REUSED");
  });

  it.each([
    ["another label", { label: "rack-2" }],
    ["another return_url", { return_url: "https://host.example/orders/2" }],
    ["no return_url", { return_url: undefined }],
  ])("counts the whole body: the same key with %s is 409", async (_name, change) => {
    const key = crypto.randomUUID();
    const body = {
      operator: accountAddress(),
      reference: "order-1",
      label: "rack-1",
      return_url: "https://host.example/orders/1",
    };
    expect((await hostPost("", body, { "idempotency-key": key })).status).toBe(201);
    const other = await hostPost("", { ...body, ...change }, { "idempotency-key": key });
    expect(other.status).toBe(409);
    expect(await errorReason(other)).toBe("IDEMPOTENCY_KEY_REUSED");
  });

  it("creates exactly one onboarding for ten concurrent creates with one key", async () => {
    const key = crypto.randomUUID();
    const body = { operator: accountAddress() };
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => hostPost("", body, { "idempotency-key": key })),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    const ids = new Set(await Promise.all(responses.map(async (r) => (await r.json<{ id: string }>()).id)));
    expect(ids.size).toBe(1);
  });

  it("remembers a key 24 hours from the create it answered", async () => {
    const key = crypto.randomUUID();
    const response = await hostPost("", { operator: accountAddress() }, { "idempotency-key": key });
    const created = await response.json<{ created_at: string }>();
    const alarm = await runInDurableObject(
      env.IDEMPOTENCY_KEYS.get(env.IDEMPOTENCY_KEYS.idFromName(key)),
      (_instance, state) => state.storage.getAlarm(),
    );
    // The key's object and the onboarding's each read the clock once: within a minute of each other.
    expect(Math.abs(alarm! - (Date.parse(created.created_at) + 24 * 3_600_000))).toBeLessThan(60_000);
  });

  it("refuses a key with spaces or over 255 characters", async () => {
    for (const key of ["has space", "k".repeat(256)]) {
      const response = await hostPost("", { operator: accountAddress() }, { "idempotency-key": key });
      expect(response.status).toBe(400);
      expect(await errorReason(response)).toBe("INVALID_IDEMPOTENCY_KEY");
    }
  });
});

describe("cancel", () => {
  it("cancels an open onboarding, repeats harmlessly, and reports it once", async () => {
    const created = await createOnboarding({ operator: accountAddress() });
    const first = await hostPost(`/${created.id}/cancel`, {});
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ status: "cancelled" });
    expect((await hostPost(`/${created.id}/cancel`, {})).status).toBe(200);
    const log = await (await host(`/${created.id}/events`)).json<{ events: { type: string }[] }>();
    expect(log.events.map((e) => e.type)).toEqual(["onboarding.cancelled"]);
  });
});

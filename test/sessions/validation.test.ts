import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  ORIGIN,
  TTL_MAX_SECONDS,
  WALLET,
  api,
  confirm,
  createPayload,
  createSession,
  errorReason,
  mintSessionId,
  postJson,
  proofFor,
} from "../helpers/sessions";

/** Ids of every refused create: none may leave a session or Durable Object storage behind. */
const refusedIds: string[] = [];

/** Storage keys and alarm of the Durable Object of `sessionId`. */
async function storageOf(sessionId: string) {
  const stub = env.PAIRING_SESSIONS.get(env.PAIRING_SESSIONS.idFromName(sessionId));
  return runInDurableObject(stub, async (_instance, state) => ({
    keys: [...(await state.storage.list()).keys()],
    alarm: await state.storage.getAlarm(),
  }));
}

describe("create refuses bad input with the one error shape", () => {
  const later = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();
  const cases: [string, (id: string) => RequestInit & { body?: string }, number, string][] = [
    ["malformed JSON", () => ({ body: "{" }), 400, "MALFORMED_JSON"],
    ["a JSON array", (id) => ({ body: JSON.stringify([createPayload(id)]) }), 400, "MALFORMED_JSON"],
    [
      "wrong content type",
      (id) => ({ body: JSON.stringify(createPayload(id)), headers: { "content-type": "text/plain" } }),
      415,
      "UNSUPPORTED_MEDIA_TYPE",
    ],
    [
      "a body over the limit",
      (id) => ({ body: JSON.stringify({ ...createPayload(id), pad: "x".repeat(5000) }) }),
      413,
      "BODY_TOO_LARGE",
    ],
    ["an unknown field", (id) => ({ body: JSON.stringify({ ...createPayload(id), extra: 1 }) }), 400, "INVALID_FIELD"],
    [
      "a __proto__ key",
      (id) => ({ body: `{"__proto__":{"admin":true},${JSON.stringify(createPayload(id)).slice(1)}` }),
      400,
      "INVALID_FIELD",
    ],
    [
      "an id that is not cs_ + 32 hex",
      (id) => ({ body: JSON.stringify(createPayload(id.toUpperCase())) }),
      400,
      "INVALID_FIELD",
    ],
    [
      "another chain id",
      (id) => ({ body: JSON.stringify(createPayload(id, { chain_id: "other-1" })) }),
      400,
      "CHAIN_ID_MISMATCH",
    ],
    [
      "an origin with a path",
      (id) => ({ body: JSON.stringify(createPayload(id, { origin: { name: "x", url: `${ORIGIN}/app` } })) }),
      400,
      "INVALID_ORIGIN",
    ],
    [
      "another origin",
      (id) => ({ body: JSON.stringify(createPayload(id, { origin: { name: "x", url: "https://evil.test" } })) }),
      400,
      "ORIGIN_MISMATCH",
    ],
    [
      "a relay_url for another session",
      (id) => ({
        body: JSON.stringify(createPayload(id, { relay_url: `${ORIGIN}${WALLET}/${mintSessionId()}/confirm` })),
      }),
      400,
      "INVALID_RELAY_URL",
    ],
    [
      "a relay_url on another origin",
      (id) => ({ body: JSON.stringify(createPayload(id, { relay_url: `https://evil.test${WALLET}/${id}/confirm` })) }),
      400,
      "INVALID_RELAY_URL",
    ],
    [
      "a relay_url with credentials",
      (id) => ({
        body: JSON.stringify(createPayload(id, { relay_url: `https://u:p@edge.test${WALLET}/${id}/confirm` })),
      }),
      400,
      "INVALID_RELAY_URL",
    ],
    [
      "an expires_at in the past",
      (id) => ({ body: JSON.stringify(createPayload(id, { expires_at: "2020-01-01T00:00:00Z" })) }),
      400,
      "EXPIRES_AT_IN_PAST",
    ],
    [
      "an expires_at of right now",
      (id) => ({ body: JSON.stringify(createPayload(id, { expires_at: later(-0.001) })) }),
      400,
      "EXPIRES_AT_IN_PAST",
    ],
    [
      "an expires_at beyond the cap",
      (id) => ({ body: JSON.stringify(createPayload(id, { expires_at: later(TTL_MAX_SECONDS + 5) })) }),
      400,
      "EXPIRES_AT_TOO_LATE",
    ],
    [
      "an expires_at a day away",
      (id) => ({ body: JSON.stringify(createPayload(id, { expires_at: later(86_400) })) }),
      400,
      "EXPIRES_AT_TOO_LATE",
    ],
    [
      "an expires_at that is not ISO-8601",
      (id) => ({ body: JSON.stringify(createPayload(id, { expires_at: "tomorrow" })) }),
      400,
      "INVALID_FIELD",
    ],
    [
      "a browser create from another origin",
      (id) => ({ body: JSON.stringify(createPayload(id)), headers: { origin: "https://evil.test" } }),
      403,
      "CROSS_ORIGIN",
    ],
    [
      "a cross-site fetch",
      (id) => ({ body: JSON.stringify(createPayload(id)), headers: { "sec-fetch-site": "cross-site" } }),
      403,
      "CROSS_ORIGIN",
    ],
    [
      "a fetch from a sibling subdomain (same-site)",
      (id) => ({ body: JSON.stringify(createPayload(id)), headers: { "sec-fetch-site": "same-site" } }),
      403,
      "CROSS_ORIGIN",
    ],
  ];
  for (const [name, makeInit, status, reason] of cases) {
    it(`refuses ${name}`, async () => {
      const sessionId = mintSessionId();
      refusedIds.push(sessionId);
      const init = makeInit(sessionId);
      const response = await postJson(WALLET, init.body, { headers: init.headers });
      expect(response.status).toBe(status);
      expect(await errorReason(response)).toBe(reason);
    });
  }

  it("names the cap when expires_at is beyond it, and says the latest time it would accept", async () => {
    const sessionId = mintSessionId();
    refusedIds.push(sessionId);
    const response = await postJson(
      WALLET,
      // A minute past the cap: still past it however long the request takes to reach the server.
      createPayload(sessionId, { expires_at: new Date(Date.now() + (TTL_MAX_SECONDS + 60) * 1000).toISOString() }),
    );
    const body = await response.json<{ message: string; details: { metadata: Record<string, string> }[] }>();
    expect(body.message).toBe(`expires_at may be at most ${TTL_MAX_SECONDS} seconds from now`);
    expect(body.details[0]!.metadata.max_seconds).toBe(String(TTL_MAX_SECONDS));
    const latest = Date.parse(body.details[0]!.metadata.latest_expires_at!);
    expect(latest).toBeGreaterThan(Date.now());
    expect(latest).toBeLessThanOrEqual(Date.now() + TTL_MAX_SECONDS * 1000);
  });

  it("refuses create and confirm over plain http from a non-local host", async () => {
    const sessionId = mintSessionId();
    refusedIds.push(sessionId);
    const plain = "http://edge.test";
    const created = await postJson(
      `${plain}${WALLET}`,
      createPayload(sessionId, {
        origin: { name: "x", url: plain },
        relay_url: `${plain}${WALLET}/${sessionId}/confirm`,
      }),
    );
    expect(created.status).toBe(403);
    expect(await errorReason(created)).toBe("INSECURE_TRANSPORT");
    const confirmed = await postJson(`${plain}${WALLET}/${sessionId}/confirm`, proofFor(sessionId));
    expect(confirmed.status).toBe(403);
  });

  it("left no session and no Durable Object storage behind for any refused create", async () => {
    expect(refusedIds.length).toBeGreaterThan(20);
    for (const sessionId of refusedIds) {
      expect((await api(`${WALLET}/${sessionId}`)).status, sessionId).toBe(404);
      expect(await storageOf(sessionId)).toEqual({ keys: [], alarm: null });
    }
  });

  it("accepts an expires_at exactly at the cap, and keeps it as sent", async () => {
    const expiresAt = new Date(Date.now() + TTL_MAX_SECONDS * 1000 - 1000).toISOString();
    const response = await postJson(WALLET, createPayload(undefined, { expires_at: expiresAt }));
    expect(response.status).toBe(201);
    expect((await response.json<{ expires_at: string }>()).expires_at).toBe(expiresAt);
  });

  it("accepts a browser create from its own origin", async () => {
    const response = await postJson(WALLET, createPayload(), {
      headers: { origin: ORIGIN, "sec-fetch-site": "same-origin" },
    });
    expect(response.status).toBe(201);
  });

  it("allows plain http on localhost", async () => {
    const sessionId = mintSessionId();
    const local = "http://127.0.0.1:8787";
    const response = await postJson(
      `${local}${WALLET}`,
      createPayload(sessionId, {
        origin: { name: "x", url: local },
        relay_url: `${local}${WALLET}/${sessionId}/confirm`,
      }),
    );
    expect(response.status).toBe(201);
  });

  it("answers 405 with Allow for other methods", async () => {
    const response = await api(WALLET, { method: "PUT" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    const onRow = await api(`${WALLET}/${mintSessionId()}`, { method: "PATCH" });
    expect(onRow.headers.get("allow")).toBe("GET, HEAD, DELETE");
  });
});

describe("a JSON body is JSON whatever the media type's parameters and case", () => {
  const jsonTypes = [
    "application/json; charset=utf-8",
    "application/json;charset=UTF-8",
    "Application/JSON",
    " application/json ; charset=utf-8",
  ];

  it.each(jsonTypes)("creates and confirms with Content-Type: %s", async (type) => {
    const sessionId = mintSessionId();
    const created = await postJson(WALLET, createPayload(sessionId), { headers: { "content-type": type } });
    expect(created.status, await created.clone().text()).toBe(201);
    const confirmed = await postJson(`${WALLET}/${sessionId}/confirm`, proofFor(sessionId), {
      headers: { "content-type": type },
    });
    expect(confirmed.status, await confirmed.clone().text()).toBe(200);
    expect(await confirmed.json()).toMatchObject({ status: "connected" });
  });

  it.each([
    "text/plain; charset=utf-8",
    "application/jsonp",
    "application/vnd.api+json",
    "multipart/form-data; boundary=x",
  ])("refuses Content-Type: %s with 415", async (type) => {
    const response = await postJson(WALLET, createPayload(), { headers: { "content-type": type } });
    expect(response.status).toBe(415);
    expect(await errorReason(response)).toBe("UNSUPPORTED_MEDIA_TYPE");
  });
});

describe("confirm refuses a malformed request and changes nothing", () => {
  it("refuses malformed JSON, a wrong content type and an oversized body", async () => {
    const sessionId = await createSession();
    const before = await (await api(`${WALLET}/${sessionId}`)).json();
    const path = `${WALLET}/${sessionId}/confirm`;
    expect((await postJson(path, '{"session_id":')).status).toBe(400);
    expect(
      (await postJson(path, proofFor(sessionId), { headers: { "content-type": "application/x-www-form-urlencoded" } }))
        .status,
    ).toBe(415);
    expect((await postJson(path, { ...(proofFor(sessionId) as object), pad: "x".repeat(17_000) })).status).toBe(413);
    expect(await (await api(`${WALLET}/${sessionId}`)).json()).toEqual(before);
  });

  it("refuses an id that is not cs_ + 32 hex in the path", async () => {
    for (const id of [
      "cs_123",
      // 128 bits: 32 hex characters exactly, no fewer and no more.
      "cs_" + "a".repeat(31),
      "cs_" + "a".repeat(33),
      "CS_" + "a".repeat(32),
      "cs_" + "A".repeat(32),
      "cs_" + "g".repeat(32),
      "x".repeat(35),
    ]) {
      const response = await api(`${WALLET}/${id}`);
      expect(response.status).toBe(400);
      expect(await errorReason(response)).toBe("INVALID_SESSION_ID");
    }
  });
});

describe("ids that were never created", () => {
  it("leave no Durable Object storage behind after read, cancel and confirm", async () => {
    const sessionId = mintSessionId();
    const statuses = [
      (await api(`${WALLET}/${sessionId}`)).status,
      (await api(`${WALLET}/${sessionId}`, { method: "DELETE" })).status,
      (await confirm(sessionId, proofFor(sessionId))).status,
      (await api(`${WALLET}/${sessionId}`, { headers: { upgrade: "websocket" } })).status,
    ];
    expect(statuses).toEqual([404, 404, 404, 404]);
    expect(await storageOf(sessionId)).toEqual({ keys: [], alarm: null });
  });
});

describe("rate limit on session creation", () => {
  it("refuses the 31st create within a minute from one client, not from another", async () => {
    // The limiter counts in fixed 60 s windows: a run that straddles a window's end starts again
    // with a new client, so the 31st create always falls in the same window as the first.
    const window = () => Math.floor(Date.now() / 60_000);
    let ip = "";
    let statuses: number[] = [];
    for (;;) {
      ip = `203.0.113.${Math.floor(Math.random() * 250)}-${crypto.randomUUID()}`;
      const started = window();
      statuses = [];
      for (let i = 0; i < 31; i++) statuses.push((await postJson(WALLET, createPayload(), { ip })).status);
      if (window() === started) break;
    }
    expect(statuses.slice(0, 30).every((s) => s === 201)).toBe(true);
    expect(statuses[30]).toBe(429);
    const limitedId = mintSessionId();
    const limited = await postJson(WALLET, createPayload(limitedId), { ip });
    expect(limited.headers.get("retry-after")).toBe("60");
    expect(await errorReason(limited)).toBe("RATE_LIMITED");
    expect(await storageOf(limitedId)).toEqual({ keys: [], alarm: null });
    expect((await postJson(WALLET, createPayload(), { ip: "192.0.2.77" })).status).toBe(201);
  });
});

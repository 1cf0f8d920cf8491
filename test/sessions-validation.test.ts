import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  ORIGIN,
  WALLET,
  accountAddress,
  api,
  confirm,
  createPayload,
  createSession,
  errorReason,
  mintSessionId,
  postJson,
  proofFor,
  publicKey,
} from "./helpers/sessions";

/** The row as stored, read back to prove a refusal changed nothing. */
async function rowOf(sessionId: string) {
  return (await api(`${WALLET}/${sessionId}`)).json();
}

function flipChecksum(address: string): string {
  const last = address.at(-1)!;
  return address.slice(0, -1) + (last === "q" ? "p" : "q");
}

describe("create refuses bad input with the one error shape", () => {
  const sessionId = mintSessionId();
  const cases: [string, RequestInit & { body?: string }, number, string][] = [
    ["malformed JSON", { body: "{" }, 400, "MALFORMED_JSON"],
    ["a JSON array", { body: "[]" }, 400, "MALFORMED_JSON"],
    ["wrong content type", { body: JSON.stringify(createPayload()), headers: { "content-type": "text/plain" } }, 415, "UNSUPPORTED_MEDIA_TYPE"],
    ["a body over the limit", { body: JSON.stringify({ ...createPayload(), pad: "x".repeat(5000) }) }, 413, "BODY_TOO_LARGE"],
    ["an unknown field", { body: JSON.stringify({ ...createPayload(), extra: 1 }) }, 400, "INVALID_FIELD"],
    ["a __proto__ key", { body: `{"__proto__":{"admin":true},${JSON.stringify(createPayload()).slice(1)}` }, 400, "INVALID_FIELD"],
    ["an id that is not cs_ + 32 hex", { body: JSON.stringify(createPayload("cs_ABC")) }, 400, "INVALID_FIELD"],
    ["another chain id", { body: JSON.stringify(createPayload(sessionId, { chain_id: "other-1" })) }, 400, "CHAIN_ID_MISMATCH"],
    ["an origin with a path", { body: JSON.stringify(createPayload(sessionId, { origin: { name: "x", url: `${ORIGIN}/app` } })) }, 400, "INVALID_ORIGIN"],
    ["another origin", { body: JSON.stringify(createPayload(sessionId, { origin: { name: "x", url: "https://evil.test" } })) }, 400, "ORIGIN_MISMATCH"],
    ["a relay_url for another session", { body: JSON.stringify(createPayload(sessionId, { relay_url: `${ORIGIN}${WALLET}/${mintSessionId()}/confirm` })) }, 400, "INVALID_RELAY_URL"],
    ["a relay_url on another origin", { body: JSON.stringify(createPayload(sessionId, { relay_url: `https://evil.test${WALLET}/${sessionId}/confirm` })) }, 400, "INVALID_RELAY_URL"],
    ["a relay_url with credentials", { body: JSON.stringify(createPayload(sessionId, { relay_url: `https://u:p@edge.test${WALLET}/${sessionId}/confirm` })) }, 400, "INVALID_RELAY_URL"],
    ["an expires_at in the past", { body: JSON.stringify(createPayload(sessionId, { expires_at: "2020-01-01T00:00:00Z" })) }, 400, "EXPIRES_AT_IN_PAST"],
    ["an expires_at that is not ISO-8601", { body: JSON.stringify(createPayload(sessionId, { expires_at: "tomorrow" })) }, 400, "INVALID_FIELD"],
  ];
  for (const [name, init, status, reason] of cases) {
    it(`refuses ${name}`, async () => {
      const response = await postJson(WALLET, init.body, { headers: init.headers });
      expect(response.status).toBe(status);
      expect(await errorReason(response)).toBe(reason);
    });
  }

  it("left no session behind for any refused create", async () => {
    expect((await api(`${WALLET}/${sessionId}`)).status).toBe(404);
  });

  it("refuses a browser create from another origin", async () => {
    const response = await postJson(WALLET, createPayload(), { headers: { origin: "https://evil.test" } });
    expect(response.status).toBe(403);
    expect(await errorReason(response)).toBe("CROSS_ORIGIN");
  });

  it("accepts a browser create from its own origin", async () => {
    const response = await postJson(WALLET, createPayload(), { headers: { origin: ORIGIN, "sec-fetch-site": "same-origin" } });
    expect(response.status).toBe(201);
  });

  it("refuses create and confirm over plain http from a non-local host", async () => {
    const sessionId = mintSessionId();
    const plain = "http://edge.test";
    const created = await postJson(`${plain}${WALLET}`, createPayload(sessionId, {
      origin: { name: "x", url: plain },
      relay_url: `${plain}${WALLET}/${sessionId}/confirm`,
    }));
    expect(created.status).toBe(403);
    expect(await errorReason(created)).toBe("INSECURE_TRANSPORT");
    const confirmed = await postJson(`${plain}${WALLET}/${sessionId}/confirm`, proofFor(sessionId));
    expect(confirmed.status).toBe(403);
  });

  it("allows plain http on localhost", async () => {
    const sessionId = mintSessionId();
    const local = "http://127.0.0.1:8787";
    const response = await postJson(`${local}${WALLET}`, createPayload(sessionId, {
      origin: { name: "x", url: local },
      relay_url: `${local}${WALLET}/${sessionId}/confirm`,
    }));
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

describe("confirm refuses bad proofs and changes nothing", () => {
  const badProofs: [string, (id: string) => unknown, string][] = [
    ["a session_id that differs from the path", () => proofFor(mintSessionId()), "SESSION_ID_MISMATCH"],
    ["a missing session_id", (id) => { const { session_id: _, ...p } = proofFor(id); return p; }, "INVALID_PROOF"],
    ["an address with a bad checksum", (id) => proofFor(id, { address: flipChecksum(accountAddress()) }), "INVALID_ADDRESS"],
    ["an address with another prefix", (id) => proofFor(id, { address: accountAddress("cosmos") }), "INVALID_ADDRESS"],
    ["a mixed-case address", (id) => { const a = accountAddress(); return proofFor(id, { address: a.slice(0, 8) + a.slice(8).toUpperCase() }); }, "INVALID_ADDRESS"],
    ["a pubkey that is not base64", (id) => proofFor(id, { pubkey_base64: "not base64!" }), "INVALID_PUBKEY"],
    ["a pubkey in URL-safe base64", (id) => proofFor(id, { pubkey_base64: publicKey().replaceAll("+", "-").replaceAll("/", "_") + "-_" }), "INVALID_PUBKEY"],
    ["a pubkey with non-canonical padding bits", (id) => proofFor(id, { pubkey_base64: "AB==" }), "INVALID_PUBKEY"],
    ["a pubkey of an impossible length", (id) => proofFor(id, { pubkey_base64: publicKey(33) }), "INVALID_PUBKEY"],
    ["an unknown field", (id) => ({ ...(proofFor(id) as object), signature: "x" }), "INVALID_PROOF"],
    ["both spellings of one field", (id) => ({ ...(proofFor(id) as object), sessionId: id }), "INVALID_PROOF"],
    ["a label with control characters", (id) => proofFor(id, { account_label: "a\u0000b" }), "INVALID_PROOF"],
    ["a label that is too long", (id) => proofFor(id, { account_label: "x".repeat(65) }), "INVALID_PROOF"],
    ["an address that is a number", (id) => proofFor(id, { address: 42 }), "INVALID_PROOF"],
  ];
  for (const [name, makeProof, reason] of badProofs) {
    it(`refuses ${name}`, async () => {
      const sessionId = await createSession();
      const before = await rowOf(sessionId);
      const response = await confirm(sessionId, makeProof(sessionId));
      expect(response.status).toBe(400);
      expect(await errorReason(response)).toBe(reason);
      expect(await rowOf(sessionId)).toEqual(before);
    });
  }

  it("refuses malformed JSON, a wrong content type and an oversized body", async () => {
    const sessionId = await createSession();
    const path = `${WALLET}/${sessionId}/confirm`;
    expect((await postJson(path, "{\"session_id\":")).status).toBe(400);
    expect((await postJson(path, proofFor(sessionId), { headers: { "content-type": "application/x-www-form-urlencoded" } })).status).toBe(415);
    expect((await postJson(path, { ...(proofFor(sessionId) as object), pad: "x".repeat(9000) })).status).toBe(413);
    expect(await rowOf(sessionId)).toMatchObject({ status: "pending", address: null });
  });

  it("refuses an id that is not cs_ + 32 hex in the path", async () => {
    for (const id of ["cs_123", "CS_" + "a".repeat(32), "cs_" + "A".repeat(32), "cs_" + "g".repeat(32), "x".repeat(35)]) {
      const response = await api(`${WALLET}/${id}`);
      expect(response.status).toBe(400);
      expect(await errorReason(response)).toBe("INVALID_SESSION_ID");
    }
  });

  it("accepts a proof with a valid address and a 1952-byte key", async () => {
    const sessionId = await createSession();
    expect((await confirm(sessionId, proofFor(sessionId))).status).toBe(200);
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
    const stub = env.PAIRING_SESSIONS.get(env.PAIRING_SESSIONS.idFromName(sessionId));
    const stored = await runInDurableObject(stub, async (_instance, state) => ({
      keys: [...(await state.storage.list()).keys()],
      alarm: await state.storage.getAlarm(),
    }));
    expect(stored).toEqual({ keys: [], alarm: null });
  });
});

describe("rate limit on session creation", () => {
  it("refuses the 31st create within a minute from one client, not from another", async () => {
    const ip = `203.0.113.${Math.floor(Math.random() * 250)}`;
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push((await postJson(WALLET, createPayload(), { ip })).status);
    expect(statuses.slice(0, 30).every((s) => s === 201)).toBe(true);
    expect(statuses[30]).toBe(429);
    const limited = await postJson(WALLET, createPayload(), { ip });
    expect(limited.headers.get("retry-after")).toBe("60");
    expect(await errorReason(limited)).toBe("RATE_LIMITED");
    expect((await postJson(WALLET, createPayload(), { ip: "192.0.2.77" })).status).toBe(201);
  });
});

import { describe, expect, it } from "vitest";
import {
  CHAIN_ID,
  ORIGIN,
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

describe("create", () => {
  it("answers 201 with a pending row for a client-minted id", async () => {
    const sessionId = mintSessionId();
    const response = await postJson(WALLET, createPayload(sessionId));
    expect(response.status).toBe(201);
    expect(response.headers.get("location")).toBe(`${WALLET}/${sessionId}`);
    const row = await response.json<Record<string, unknown>>();
    expect(row).toMatchObject({
      session_id: sessionId,
      status: "pending",
      chain_id: CHAIN_ID,
      origin: { name: "Edge test", url: ORIGIN },
      address: null,
      pubkey_base64: null,
      account_label: null,
      connected_at: null,
    });
    expect(Date.parse(row.created_at as string)).toBeLessThanOrEqual(Date.now());
  });

  it("mints an id when the body has none", async () => {
    const { session_id: _, relay_url: __, ...payload } = createPayload();
    const response = await postJson(WALLET, payload);
    expect(response.status).toBe(201);
    const row = await response.json<{ session_id: string }>();
    expect(row.session_id).toMatch(/^cs_[0-9a-f]{32}$/);
  });

  it("answers 409 when the id already exists, leaving the first row as it was", async () => {
    const sessionId = await createSession();
    const again = await postJson(WALLET, createPayload(sessionId, { origin: { name: "Other", url: ORIGIN } }));
    expect(again.status).toBe(409);
    expect(await errorReason(again)).toBe("SESSION_EXISTS");
    const row = await (await api(`${WALLET}/${sessionId}`)).json<{ origin: { name: string } }>();
    expect(row.origin.name).toBe("Edge test");
  });

  it("defaults expires_at to five minutes (the SDK's) when the body names none", async () => {
    const { expires_at: _, ...noExpiry } = createPayload();
    // Five minutes from when the server took it: between the clock before the request and after its answer.
    const before = Date.now();
    const plain = await (await postJson(WALLET, noExpiry)).json<{ expires_at: string }>();
    const after = Date.now();
    expect(Date.parse(plain.expires_at)).toBeGreaterThanOrEqual(before + 300_000);
    expect(Date.parse(plain.expires_at)).toBeLessThanOrEqual(after + 300_000);
  });
});

describe("read", () => {
  it("returns the current row without caching", async () => {
    const sessionId = await createSession();
    const response = await api(`${WALLET}/${sessionId}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await response.json()).toMatchObject({ session_id: sessionId, status: "pending" });
  });

  it("answers 404 for an id never created (the SDK's 'not yet')", async () => {
    const response = await api(`${WALLET}/${mintSessionId()}`);
    expect(response.status).toBe(404);
    expect(await errorReason(response)).toBe("SESSION_NOT_FOUND");
  });
});

describe("confirm", () => {
  it("connects a pending session and fills the proof's fields", async () => {
    const sessionId = await createSession();
    const proof = proofFor(sessionId);
    const response = await confirm(sessionId, proof);
    expect(response.status).toBe(200);
    const row = await response.json<Record<string, string>>();
    expect(row).toMatchObject({
      status: "connected",
      address: proof.address,
      pubkey_base64: proof.pubkey_base64,
      account_label: "Main",
    });
    expect(Date.parse(row.connected_at!)).toBeLessThanOrEqual(Date.now());
    expect(await (await api(`${WALLET}/${sessionId}`)).json()).toEqual(row);
  });

  it("accepts the SDK's camelCase spellings", async () => {
    const sessionId = await createSession();
    const { session_id, pubkey_base64, account_label, ...rest } = proofFor(sessionId);
    const response = await confirm(sessionId, {
      ...rest,
      sessionId: session_id,
      pubkeyBase64: pubkey_base64,
      accountLabel: account_label,
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: "connected", pubkey_base64 });
  });

  it("answers 200 again for the same proof and 409 for another, changing nothing", async () => {
    const sessionId = await createSession();
    const proof = proofFor(sessionId);
    const first = await (await confirm(sessionId, proof)).json();
    const repeat = await confirm(sessionId, proof);
    expect(repeat.status).toBe(200);
    expect(await repeat.json()).toEqual(first);

    const other = await confirm(sessionId, proofFor(sessionId));
    expect(other.status).toBe(409);
    expect(await errorReason(other)).toBe("SESSION_ALREADY_CONNECTED");
    expect(await (await api(`${WALLET}/${sessionId}`)).json()).toEqual(first);
  });

  it("refuses a cancelled session with a 4xx that says so", async () => {
    const sessionId = await createSession();
    await api(`${WALLET}/${sessionId}`, { method: "DELETE" });
    const response = await confirm(sessionId, proofFor(sessionId));
    expect(response.status).toBe(410);
    expect(await errorReason(response)).toBe("SESSION_CANCELLED");
  });

  it("answers 404 for an unknown session", async () => {
    const sessionId = mintSessionId();
    const response = await confirm(sessionId, proofFor(sessionId));
    expect(response.status).toBe(404);
  });
});

describe("cancel", () => {
  it("marks a pending session cancelled; repeating is harmless", async () => {
    const sessionId = await createSession();
    const first = await api(`${WALLET}/${sessionId}`, { method: "DELETE" });
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ status: "cancelled" });
    const again = await api(`${WALLET}/${sessionId}`, { method: "DELETE" });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ status: "cancelled" });
  });

  it("refuses to cancel a connected session", async () => {
    const sessionId = await createSession();
    await confirm(sessionId, proofFor(sessionId));
    const response = await api(`${WALLET}/${sessionId}`, { method: "DELETE" });
    expect(response.status).toBe(409);
    expect(await (await api(`${WALLET}/${sessionId}`)).json()).toMatchObject({ status: "connected" });
  });

  it("answers 404 for an unknown session", async () => {
    expect((await api(`${WALLET}/${mintSessionId()}`, { method: "DELETE" })).status).toBe(404);
  });
});

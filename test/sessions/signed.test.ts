/**
 * Signed session ids (src/sessions/signed-ids.ts): the page's document carries one, and its row
 * is stored on its first use (the wallet's confirm, the page's read or WebSocket), counted
 * against the create limit; a tampered, expired, foreign-origin or foreign-chain id stores nothing.
 */
import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { readConfig } from "../../src/config";
import { PAGE_ORIGIN_NAME } from "../../src/protocol/page-origin";
import { mintSignedSessionId } from "../../src/sessions/signed-ids";
import {
  CHAIN_ID,
  ORIGIN,
  TTL_MAX_SECONDS,
  WALLET,
  accountAddress,
  api,
  confirm,
  createPayload,
  errorReason,
  postJson,
  proofFor,
} from "../helpers/sessions";

const config = readConfig(env);
const scope = { secret: config.sessionSigningKey!, origin: ORIGIN, chainId: CHAIN_ID };

/** The session a load of the page carries, as the document says it. */
async function documentSession(origin = ORIGIN): Promise<{ session_id: string; expires_at: string }> {
  const html = await (await exports.default.fetch(new Request(`${origin}/?operator=${accountAddress()}`))).text();
  return JSON.parse(/<script type="application\/json" id="first-session">([^<]*)<\/script>/.exec(html)![1]!);
}

async function stored(sessionId: string): Promise<{ keys: string[]; alarm: number | null }> {
  const stub = env.PAIRING_SESSIONS.get(env.PAIRING_SESSIONS.idFromName(sessionId));
  return runInDurableObject(stub, async (_instance, state) => ({
    keys: [...(await state.storage.list()).keys()],
    alarm: await state.storage.getAlarm(),
  }));
}
const NOTHING = { keys: [], alarm: null };

/** Opens the push channel and resolves with the first row it sends (or the refusal). */
async function firstPush(
  sessionId: string,
  init: { ip?: string; origin?: string } = {},
): Promise<{ status: number; row?: Record<string, unknown> }> {
  const response = await api(`${init.origin ?? ORIGIN}${WALLET}/${sessionId}`, {
    headers: { upgrade: "websocket", origin: init.origin ?? ORIGIN },
    ip: init.ip,
  });
  const socket = response.webSocket;
  if (!socket) return { status: response.status };
  socket.accept();
  const row = await new Promise<Record<string, unknown>>((resolve) =>
    socket.addEventListener("message", (event) => resolve(JSON.parse(event.data as string))),
  );
  socket.close(1000);
  return { status: response.status, row };
}

/** `id` with the hex character at `index` (after `cs_`) changed. */
const changed = (id: string, index: number) =>
  `${id.slice(0, 3 + index)}${id[3 + index] === "0" ? "1" : "0"}${id.slice(4 + index)}`;

describe("the document's session, stored on first use", () => {
  it("is stored by the wallet's relayed confirm, as the link promised it, and connected", async () => {
    const first = await documentSession();
    expect(await stored(first.session_id)).toEqual(NOTHING);
    const proof = proofFor(first.session_id);
    const confirmed = await confirm(first.session_id, proof);
    expect(confirmed.status).toBe(200);
    expect(await confirmed.json()).toMatchObject({
      session_id: first.session_id,
      status: "connected",
      chain_id: CHAIN_ID,
      origin: { name: PAGE_ORIGIN_NAME, url: ORIGIN },
      expires_at: first.expires_at,
      address: proof.address,
    });
    expect((await api(`${WALLET}/${first.session_id}`)).status).toBe(200);
    expect((await confirm(first.session_id, proofFor(first.session_id))).status).toBe(409);
    expect((await confirm(first.session_id, proof)).status).toBe(200);
  });

  it("is stored pending by the page's read, and by its WebSocket, which pushes the row", async () => {
    const read = await documentSession();
    const answer = await api(`${WALLET}/${read.session_id}`);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({
      session_id: read.session_id,
      status: "pending",
      expires_at: read.expires_at,
      origin: { name: PAGE_ORIGIN_NAME, url: ORIGIN },
    });
    expect((await stored(read.session_id)).alarm).toBe(Date.parse(read.expires_at));

    const pushed = await documentSession();
    const push = await firstPush(pushed.session_id);
    expect(push.status).toBe(101);
    expect(push.row).toMatchObject({ session_id: pushed.session_id, status: "pending", expires_at: pushed.expires_at });
    expect((await confirm(pushed.session_id, proofFor(pushed.session_id))).status).toBe(200);
  });

  it("is stored by a cancel too, which cancels it", async () => {
    const first = await documentSession();
    const cancelled = await api(`${WALLET}/${first.session_id}`, { method: "DELETE" });
    expect(cancelled.status).toBe(200);
    expect(await cancelled.json()).toMatchObject({ status: "cancelled" });
    expect((await confirm(first.session_id, proofFor(first.session_id))).status).toBe(410);
  });

  it("refuses an id with any character changed (expiry, nonce or tag): 404, nothing stored", async () => {
    const { session_id } = await documentSession();
    for (const index of [0, 7, 8, 19, 20, 31]) {
      const forged = changed(session_id, index);
      expect((await confirm(forged, proofFor(forged))).status, `character ${index}`).toBe(404);
      expect((await api(`${WALLET}/${forged}`)).status).toBe(404);
      expect((await firstPush(forged)).status).toBe(404);
      expect(await stored(forged)).toEqual(NOTHING);
    }
  });

  it("refuses an expired id with 410 SESSION_EXPIRED, storing nothing", async () => {
    const { sessionId } = await mintSignedSessionId(scope, Date.now() - 1000);
    const answer = await confirm(sessionId, proofFor(sessionId));
    expect(answer.status).toBe(410);
    expect(await errorReason(answer)).toBe("SESSION_EXPIRED");
    expect((await api(`${WALLET}/${sessionId}`)).status).toBe(410);
    expect((await firstPush(sessionId)).status).toBe(410);
    expect(await stored(sessionId)).toEqual(NOTHING);
  });

  it(
    "refuses an id signed for another origin, another chain, another key, or beyond the expiry cap: 404, nothing " +
      "stored",
    async () => {
      const elsewhere = (await documentSession("https://other.test")).session_id;
      const otherChain = (await mintSignedSessionId({ ...scope, chainId: "other-chain-1" }, Date.now() + 60_000))
        .sessionId;
      const otherKey = (
        await mintSignedSessionId({ ...scope, secret: "another-key-of-at-least-32-characters" }, Date.now() + 60_000)
      ).sessionId;
      const tooLong = (await mintSignedSessionId(scope, Date.now() + (TTL_MAX_SECONDS + 60) * 1000)).sessionId;
      for (const [name, id] of Object.entries({ elsewhere, otherChain, otherKey, tooLong })) {
        expect((await confirm(id, proofFor(id))).status, name).toBe(404);
        expect((await api(`${WALLET}/${id}`)).status, name).toBe(404);
        expect(await stored(id), name).toEqual(NOTHING);
      }
      // The id works where it was signed.
      expect((await api(`https://other.test${WALLET}/${elsewhere}`)).status).toBe(200);
    },
  );

  it("counts a first use against the client's create limit; a stored session's reads are not counted", async () => {
    const window = () => Math.floor(Date.now() / 60_000);
    let ip = "";
    let first = { session_id: "" };
    // Until one run falls inside one 60 s window of the limiter (a loaded machine may straddle two).
    for (;;) {
      ip = `203.0.113.${Math.floor(Math.random() * 250)}-${crypto.randomUUID()}`;
      const started = window();
      first = await documentSession();
      for (let i = 0; i < 30; i++) expect((await postJson(WALLET, createPayload(), { ip })).status).toBe(201);
      const limited = await api(`${WALLET}/${first.session_id}`, { ip });
      if (window() !== started) continue;
      expect(limited.status).toBe(429);
      expect(await errorReason(limited)).toBe("RATE_LIMITED");
      expect((await firstPush(first.session_id, { ip })).status).toBe(429);
      break;
    }
    expect(await stored(first.session_id)).toEqual(NOTHING);
    const other = `192.0.2.${Math.floor(Math.random() * 250)}-${crypto.randomUUID()}`;
    expect((await api(`${WALLET}/${first.session_id}`, { ip: other })).status).toBe(200);
    for (let i = 0; i < 31; i++) expect((await api(`${WALLET}/${first.session_id}`, { ip: other })).status).toBe(200);
  });
});

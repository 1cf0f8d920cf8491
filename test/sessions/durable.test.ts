import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  ORIGIN,
  RETENTION_MS,
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

function stubOf(sessionId: string) {
  return env.PAIRING_SESSIONS.get(env.PAIRING_SESSIONS.idFromName(sessionId));
}

/** Opens the push channel and collects every row it sends until it closes (other messages are not rows). */
async function subscribe(sessionId: string, origin: string | null = ORIGIN) {
  const headers: Record<string, string> = { upgrade: "websocket" };
  if (origin) headers.origin = origin;
  const response = await api(`${WALLET}/${sessionId}`, { headers });
  const socket = response.webSocket;
  if (!socket)
    return {
      response,
      rows: [] as Record<string, unknown>[],
      closed: Promise.resolve(0),
      next: () => Promise.reject(new Error("no socket")),
    };
  const rows: Record<string, unknown>[] = [];
  const waiters: ((row: Record<string, unknown>) => void)[] = [];
  socket.accept();
  socket.addEventListener("message", (event) => {
    if (!(event.data as string).startsWith("{")) return;
    const row = JSON.parse(event.data as string) as Record<string, unknown>;
    rows.push(row);
    waiters.shift()?.(row);
  });
  const closed = new Promise<number>((resolve) => socket.addEventListener("close", (event) => resolve(event.code)));
  let read = 0;
  const next = () =>
    read < rows.length
      ? Promise.resolve(rows[read++]!)
      : new Promise<Record<string, unknown>>((resolve) =>
          waiters.push((row) => {
            read++;
            resolve(row);
          }),
        );
  return { response, socket, rows, closed, next };
}

describe("single writer", () => {
  it("gives exactly one 200 among 50 simultaneous confirms with different addresses", async () => {
    const sessionId = await createSession();
    const proofs = Array.from({ length: 50 }, () => proofFor(sessionId));
    const responses = await Promise.all(proofs.map((proof) => confirm(sessionId, proof)));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(49);
    const winner = proofs[statuses.indexOf(200)]!;
    expect(await (await api(`${WALLET}/${sessionId}`)).json()).toMatchObject({
      status: "connected",
      address: winner.address,
    });
  });

  it("answers 200 to every one of 20 simultaneous repeats of the same proof", async () => {
    const sessionId = await createSession();
    const proof = proofFor(sessionId);
    const responses = await Promise.all(Array.from({ length: 20 }, () => confirm(sessionId, proof)));
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
  });
});

describe("expiry and retention by alarm", () => {
  it(
    "expires a pending session by its alarm, stores that, and answers 410 to reads, cancels and " + "confirms",
    async () => {
      const sessionId = mintSessionId();
      const created = await postJson(
        WALLET,
        createPayload(sessionId, { expires_at: new Date(Date.now() + 60_000).toISOString() }),
      );
      expect(created.status).toBe(201);
      const stub = stubOf(sessionId);
      const alarmAt = await runInDurableObject(stub, (_i, state) => state.storage.getAlarm());
      expect(alarmAt).toBe(Date.parse((await created.json<{ expires_at: string }>()).expires_at));

      expect(await runDurableObjectAlarm(stub)).toBe(true);
      const stored = await runInDurableObject(stub, async (_i, state) => ({
        row: await state.storage.get<{ status: string }>("row"),
        alarm: await state.storage.getAlarm(),
      }));
      expect(stored.row).toMatchObject({ status: "expired", address: null });
      expect(stored.alarm).toBeGreaterThan(Date.now() + RETENTION_MS - 60_000);

      for (const response of [
        await api(`${WALLET}/${sessionId}`),
        await api(`${WALLET}/${sessionId}`, { method: "DELETE" }),
        await confirm(sessionId, proofFor(sessionId)),
      ]) {
        expect(response.status).toBe(410);
        expect(await errorReason(response)).toBe("SESSION_EXPIRED");
      }
    },
  );

  it("answers a pending row past expires_at as expired before its alarm runs, without writing", async () => {
    const sessionId = await createSession();
    const stub = stubOf(sessionId);
    // Move the stored expiry into the past, then let the object load it afresh.
    const past = new Date(Date.now() - 1000).toISOString();
    await runInDurableObject(stub, async (_i, state) => {
      const row = await state.storage.get<Record<string, unknown>>("row");
      await state.storage.put("row", { ...row, expires_at: past });
    });
    await evictDurableObject(stub);
    const storedBefore = await runInDurableObject(stub, async (_i, state) => ({
      row: await state.storage.get("row"),
      alarm: await state.storage.getAlarm(),
    }));

    const read = await api(`${WALLET}/${sessionId}`);
    expect(read.status).toBe(410);
    expect(await errorReason(read)).toBe("SESSION_EXPIRED");
    expect((await confirm(sessionId, proofFor(sessionId))).status).toBe(410);
    expect((await api(`${WALLET}/${sessionId}`, { method: "DELETE" })).status).toBe(410);
    const channel = await subscribe(sessionId);
    expect(await channel.next()).toMatchObject({ status: "expired", expires_at: past });
    expect(await channel.closed).toBe(1000);

    // Reads never write: storage still holds the pending row; the alarm stores the expiry.
    const storedAfter = await runInDurableObject(stub, async (_i, state) => ({
      row: await state.storage.get("row"),
      alarm: await state.storage.getAlarm(),
    }));
    expect(storedAfter).toEqual(storedBefore);
    expect(storedAfter.row).toMatchObject({ status: "pending" });
    await runDurableObjectAlarm(stub);
    expect(await runInDurableObject(stub, (_i, state) => state.storage.get("row"))).toMatchObject({
      status: "expired",
    });
  });

  it("deletes a settled row, and its alarm, when the retention period ends", async () => {
    const sessionId = await createSession();
    await confirm(sessionId, proofFor(sessionId));
    const stub = stubOf(sessionId);
    const alarmAt = await runInDurableObject(stub, (_i, state) => state.storage.getAlarm());
    expect(alarmAt).toBeGreaterThan(Date.now() + RETENTION_MS - 60_000);

    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await api(`${WALLET}/${sessionId}`)).status).toBe(404);
    const left = await runInDurableObject(stub, async (_i, state) => ({
      keys: (await state.storage.list()).size,
      alarm: await state.storage.getAlarm(),
    }));
    expect(left).toEqual({ keys: 0, alarm: null });
  });
});

describe("the platform's write model: answers and pushes leave only once the row is stored", () => {
  /** The row a fresh instance of the session's object reads from storage (the old one evicted). */
  async function storedAfterEviction(sessionId: string, webSockets?: "hibernate") {
    const stub = stubOf(sessionId);
    await evictDurableObject(stub, webSockets ? { webSockets } : undefined);
    return runInDurableObject(stub, async (instance, state) => ({
      stored: await state.storage.get("row"),
      read: instance.read(),
    }));
  }

  it("keeps the row of every answer through eviction: create, confirm and cancel", async () => {
    const created = await postJson(WALLET, createPayload());
    expect(created.status).toBe(201);
    const pending = await created.json<{ session_id: string }>();
    expect(await storedAfterEviction(pending.session_id)).toEqual({
      stored: pending,
      read: { status: 200, body: pending },
    });

    const confirmed = await confirm(pending.session_id, proofFor(pending.session_id));
    expect(confirmed.status).toBe(200);
    const connected = await confirmed.json();
    expect(await storedAfterEviction(pending.session_id)).toEqual({
      stored: connected,
      read: { status: 200, body: connected },
    });

    const other = await createSession();
    const cancelled = await (await api(`${WALLET}/${other}`, { method: "DELETE" })).json();
    expect(cancelled).toMatchObject({ status: "cancelled" });
    expect((await storedAfterEviction(other)).stored).toEqual(cancelled);
  });

  it("keeps the first of 20 simultaneous confirms through eviction, and nothing of the others", async () => {
    const sessionId = await createSession();
    const responses = await Promise.all(Array.from({ length: 20 }, () => confirm(sessionId, proofFor(sessionId))));
    const winners = responses.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    expect((await storedAfterEviction(sessionId)).stored).toEqual(await winners[0]!.json());
  });

  it("pushes a subscriber the row the confirm answered with, which storage then holds", async () => {
    const sessionId = await createSession();
    const channel = await subscribe(sessionId);
    await channel.next();
    const [answer, pushed] = await Promise.all([
      confirm(sessionId, proofFor(sessionId)).then((r) => r.json()),
      channel.next(),
    ]);
    expect(pushed).toEqual(answer);
    expect((await storedAfterEviction(sessionId, "hibernate")).stored).toEqual(answer);
  });
});

describe("push over WebSocket", () => {
  it("sends the row at once, again on confirm, then closes", async () => {
    const sessionId = await createSession();
    const channel = await subscribe(sessionId);
    expect(channel.response.status).toBe(101);
    expect(await channel.next()).toMatchObject({ session_id: sessionId, status: "pending" });
    const proof = proofFor(sessionId);
    await confirm(sessionId, proof);
    expect(await channel.next()).toMatchObject({ status: "connected", address: proof.address });
    expect(await channel.closed).toBe(1000);
    expect((await api(`${WALLET}/${sessionId}`)).status).toBe(200); // polling keeps working
  });

  it("pushes cancel and expiry to every waiting socket", async () => {
    const cancelled = await createSession();
    const a = await subscribe(cancelled);
    const b = await subscribe(cancelled);
    await a.next();
    await b.next();
    await api(`${WALLET}/${cancelled}`, { method: "DELETE" });
    expect((await a.next()).status).toBe("cancelled");
    expect((await b.next()).status).toBe("cancelled");

    const expiring = await createSession();
    const c = await subscribe(expiring);
    await c.next();
    await runDurableObjectAlarm(stubOf(expiring));
    expect((await c.next()).status).toBe("expired");
    expect(await c.closed).toBe(1000);
  });

  it("sends a settled row and closes straight away", async () => {
    const sessionId = await createSession();
    await confirm(sessionId, proofFor(sessionId));
    const channel = await subscribe(sessionId);
    expect((await channel.next()).status).toBe("connected");
    expect(await channel.closed).toBe(1000);
  });

  it("keeps the socket through eviction (hibernation) and still delivers the confirm", async () => {
    const sessionId = await createSession();
    const channel = await subscribe(sessionId);
    await channel.next();
    await evictDurableObject(stubOf(sessionId), { webSockets: "hibernate" });
    const proof = proofFor(sessionId);
    expect((await confirm(sessionId, proof)).status).toBe(200);
    expect(await channel.next()).toMatchObject({ status: "connected", address: proof.address });
  });

  it("refuses an upgrade from a page of another origin (cross-site WebSocket hijacking)", async () => {
    const sessionId = await createSession();
    const channel = await subscribe(sessionId, "https://evil.test");
    expect(channel.response.status).toBe(403);
    expect(channel.response.webSocket).toBeNull();
  });

  it("sends the row again for any message, and answers ping with pong without a row", async () => {
    const sessionId = await createSession();
    const channel = await subscribe(sessionId);
    const first = await channel.next();
    channel.socket!.send("ping");
    const pong = new Promise<string>((resolve) =>
      channel.socket!.addEventListener("message", (event) => resolve(event.data as string), { once: true }),
    );
    expect(await pong).toBe("pong");
    channel.socket!.send("again, please");
    expect(await channel.next()).toEqual(first);
    expect(channel.rows).toHaveLength(2);
  });

  it("answers 404 in the one error shape, never cached, to an upgrade for an unknown session", async () => {
    const channel = await subscribe(mintSessionId());
    expect(channel.response.status).toBe(404);
    expect(channel.response.headers.get("cache-control")).toBe("no-store");
    expect(await errorReason(channel.response)).toBe("SESSION_NOT_FOUND");
  });
});

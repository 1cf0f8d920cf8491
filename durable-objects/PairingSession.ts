/**
 * PairingSession: the single writer of one `cs_` session row, running the state machine of
 * src/sessions/machine.ts.
 *
 * The row is loaded once, in `blockConcurrencyWhile`, and kept in memory. Every event is decided
 * synchronously (the next row is in memory before the first await), so concurrent confirms are
 * applied one at a time and the first valid one wins; then its effects run in order: the row and
 * its alarm are written as one batch, and only once that has committed are subscribers notified. A waiting page subscribes with a
 * hibernatable WebSocket and receives the row on every change.
 */
import { DurableObject } from "cloudflare:workers";
import { readVariable } from "../src/config";
import { errorBody } from "../src/errors";
import { isSettled, type SessionRow, type WalletProof } from "../src/protocol/index";
import { rowAt, transition, type NewSession, type SessionEffect, type SessionEvent } from "../src/sessions/machine";
import type { SessionOutcome } from "../src/sessions/outcome";
import { SESSION_NOT_FOUND, UPGRADE_REQUIRED } from "../src/sessions/refusals";

const ROW_KEY = "row";

export class PairingSession extends DurableObject<Env> {
  private row: SessionRow | null = null;
  private readonly rules: { retentionMs: number };

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.rules = { retentionMs: readVariable(env, "SESSION_RETENTION_SECONDS") * 1000 };
    ctx.blockConcurrencyWhile(async () => {
      this.row = (await ctx.storage.get<SessionRow>(ROW_KEY)) ?? null;
    });
    // Keep-alives are answered without waking the object.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair("ping", "pong"));
  }

  /** Stores a new pending row; 409 when this id is already in use. */
  async create(session: NewSession): Promise<SessionOutcome> {
    return this.answer({ type: "create", session });
  }

  /** The current row; 410 once expired, 404 for an id never created (and nothing is written). */
  async read(): Promise<SessionOutcome> {
    return this.answer({ type: "read" });
  }

  /** Cancels a pending session; repeating is harmless; a connected session cannot be cancelled. */
  async cancel(): Promise<SessionOutcome> {
    return this.answer({ type: "cancel" });
  }

  /** Applies a wallet proof: the first valid confirm wins; the same proof again is answered 200. */
  async confirm(proof: WalletProof): Promise<SessionOutcome> {
    return this.answer({ type: "confirm", proof });
  }

  /** Expiry of a pending row, or the end of a settled row's retention. */
  override async alarm(): Promise<void> {
    await this.apply({ type: "alarm" });
  }

  /** WebSocket subscription: sends the row now and on every change; closes once settled. */
  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
      return Response.json(errorBody(UPGRADE_REQUIRED), { status: UPGRADE_REQUIRED.status });
    }
    const row = rowAt(this.row, Date.now());
    if (!row) return Response.json(errorBody(SESSION_NOT_FOUND), { status: SESSION_NOT_FOUND.status });
    const { 0: client, 1: server } = new WebSocketPair();
    this.ctx.acceptWebSocket(server);
    server.send(JSON.stringify(row));
    if (isSettled(row.status)) server.close(1000, row.status);
    return new Response(null, { status: 101, webSocket: client });
  }

  /** Any message asks for the row again (a client that fears it missed an update). */
  override async webSocketMessage(socket: WebSocket): Promise<void> {
    const row = rowAt(this.row, Date.now());
    if (row) socket.send(JSON.stringify(row));
    else closeQuietly(socket, 1000, "deleted");
  }

  override async webSocketClose(socket: WebSocket, code: number): Promise<void> {
    closeQuietly(socket, code === 1005 || code === 1006 ? 1000 : code, "closed");
  }

  private async answer(event: SessionEvent): Promise<SessionOutcome> {
    // Only the alarm goes unanswered.
    return (await this.apply(event))!;
  }

  private async apply(event: SessionEvent): Promise<SessionOutcome | null> {
    const next = transition(this.row, event, Date.now(), this.rules);
    this.row = next.row;
    // Writes are issued together so they commit as one batch; subscribers hear only after it commits.
    const writes: Promise<unknown>[] = [];
    for (const effect of next.effects) {
      if (effect.type === "notify") {
        await Promise.all(writes.splice(0));
        this.broadcast(effect.row);
      } else {
        writes.push(this.write(effect));
      }
    }
    await Promise.all(writes);
    return next.answer;
  }

  private write(effect: Exclude<SessionEffect, { type: "notify" }>): Promise<unknown> {
    switch (effect.type) {
      case "store":
        return this.ctx.storage.put(ROW_KEY, effect.row);
      case "schedule":
        return this.ctx.storage.setAlarm(effect.at);
      case "erase":
        for (const socket of this.ctx.getWebSockets()) closeQuietly(socket, 1000, "deleted");
        return Promise.all([this.ctx.storage.deleteAlarm(), this.ctx.storage.deleteAll()]);
    }
  }

  private broadcast(row: SessionRow): void {
    const message = JSON.stringify(row);
    for (const socket of this.ctx.getWebSockets()) {
      try {
        socket.send(message);
      } catch {
        // A socket that is already closing needs nothing more.
      }
      if (isSettled(row.status)) closeQuietly(socket, 1000, row.status);
    }
  }
}

function closeQuietly(socket: WebSocket, code: number, reason: string): void {
  try {
    socket.close(code, reason);
  } catch {
    // Already closed.
  }
}

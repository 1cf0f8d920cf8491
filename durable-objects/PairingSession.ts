/**
 * PairingSession: the single writer of one `cs_` session row.
 *
 * The row lives in this object's SQLite-backed storage and in memory once loaded. Every method
 * decides and mutates synchronously before its first await, so concurrent confirms are applied
 * one at a time and the first valid one wins. The alarm is the session's clock: for a pending row
 * it marks the expiry, for a settled row the end of its retention, when the storage is deleted.
 * A waiting page subscribes with a hibernatable WebSocket and receives the row on every change.
 */
import { DurableObject } from "cloudflare:workers";
import { readConfig } from "../src/config";
import { errorBody, type ErrorSpec } from "../src/errors";
import {
  ALREADY_CONNECTED,
  ALREADY_CONNECTED_CANNOT_CANCEL,
  SESSION_CANCELLED,
  SESSION_EXISTS,
  SESSION_EXPIRED,
  SESSION_NOT_FOUND,
  UPGRADE_REQUIRED,
} from "../src/sessions/refusals";
import { isSettled, type SessionRow, type WalletProof } from "../src/protocol/index";
import type { SessionOutcome } from "../src/sessions/outcome";

const ROW_KEY = "row";

export class PairingSession extends DurableObject<Env> {
  private row: SessionRow | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => {
      this.row = (await ctx.storage.get<SessionRow>(ROW_KEY)) ?? null;
    });
    // Keep-alives are answered without waking the object.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair("ping", "pong"));
  }

  /** Stores a new pending row; 409 when this id was already used. */
  async create(row: SessionRow): Promise<SessionOutcome> {
    if (this.row) return refuse(SESSION_EXISTS(row.session_id));
    this.row = row;
    await this.ctx.storage.put(ROW_KEY, row);
    await this.ctx.storage.setAlarm(Date.parse(row.expires_at));
    return { ok: true, status: 201, row };
  }

  /** The current row (expired if its time has passed). Reads never write for an unknown id. */
  async read(): Promise<SessionOutcome> {
    const row = await this.current();
    return row ? { ok: true, status: 200, row } : refuse(SESSION_NOT_FOUND);
  }

  /** Cancels a pending session; repeating is harmless; a connected session cannot be cancelled. */
  async cancel(): Promise<SessionOutcome> {
    const row = await this.current();
    if (!row) return refuse(SESSION_NOT_FOUND);
    if (row.status === "connected") return refuse(ALREADY_CONNECTED_CANNOT_CANCEL);
    if (row.status === "pending") return { ok: true, status: 200, row: await this.settle({ ...row, status: "cancelled" }) };
    return { ok: true, status: 200, row };
  }

  /** Applies a wallet proof: the first valid confirm wins; the same proof again is answered 200. */
  async confirm(proof: WalletProof): Promise<SessionOutcome> {
    const row = await this.current();
    if (!row) return refuse(SESSION_NOT_FOUND);
    switch (row.status) {
      case "expired":
        return refuse(SESSION_EXPIRED);
      case "cancelled":
        return refuse(SESSION_CANCELLED);
      case "connected":
        return sameProof(row, proof) ? { ok: true, status: 200, row } : refuse(ALREADY_CONNECTED);
      case "pending": {
        const connected: SessionRow = {
          ...row,
          status: "connected",
          address: proof.address,
          pubkey_base64: proof.pubkey_base64,
          account_label: proof.account_label,
          connected_at: new Date().toISOString(),
        };
        return { ok: true, status: 200, row: await this.settle(connected) };
      }
    }
  }

  /** WebSocket subscription: sends the row now and on every change; closes once settled. */
  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
      return Response.json(errorBody(UPGRADE_REQUIRED), { status: 426 });
    }
    const row = await this.current();
    if (!row) return Response.json(errorBody(SESSION_NOT_FOUND), { status: 404 });
    const { 0: client, 1: server } = new WebSocketPair();
    this.ctx.acceptWebSocket(server);
    server.send(JSON.stringify(row));
    if (isSettled(row.status)) server.close(1000, row.status);
    return new Response(null, { status: 101, webSocket: client });
  }

  override async alarm(): Promise<void> {
    const row = this.row;
    if (row?.status === "pending") {
      await this.settle({ ...row, status: "expired" });
      return;
    }
    // A settled row's retention is over: leave no storage behind.
    this.row = null;
    for (const socket of this.ctx.getWebSockets()) closeQuietly(socket, 1000, "deleted");
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
  }

  override async webSocketMessage(socket: WebSocket): Promise<void> {
    // Any message asks for the row again (a client that missed an update).
    if (this.row) socket.send(JSON.stringify(this.row));
  }

  override async webSocketClose(socket: WebSocket, code: number): Promise<void> {
    closeQuietly(socket, code === 1005 || code === 1006 ? 1000 : code, "closed");
  }

  /** The row, moved to `expired` first when its time has passed and the alarm has not yet run. */
  private async current(): Promise<SessionRow | null> {
    const row = this.row;
    if (row?.status === "pending" && Date.now() >= Date.parse(row.expires_at)) {
      return this.settle({ ...row, status: "expired" });
    }
    return row;
  }

  /** Writes a settled row, schedules its deletion and tells every subscriber. */
  private async settle(row: SessionRow): Promise<SessionRow> {
    this.row = row;
    const retentionMs = readConfig(this.env).sessionRetentionSeconds * 1000;
    const message = JSON.stringify(row);
    for (const socket of this.ctx.getWebSockets()) {
      try {
        socket.send(message);
      } catch {
        // A socket that is already closing needs nothing more.
      }
      closeQuietly(socket, 1000, row.status);
    }
    await this.ctx.storage.put(ROW_KEY, row);
    await this.ctx.storage.setAlarm(Date.now() + retentionMs);
    return row;
  }
}

function sameProof(row: SessionRow, proof: WalletProof): boolean {
  return row.address === proof.address && row.pubkey_base64 === proof.pubkey_base64 && row.account_label === proof.account_label;
}

function closeQuietly(socket: WebSocket, code: number, reason: string): void {
  try {
    socket.close(code, reason);
  } catch {
    // Already closed.
  }
}

function refuse(error: ErrorSpec): SessionOutcome {
  return { ok: false, error };
}

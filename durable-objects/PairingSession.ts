/**
 * PairingSession: the single writer of one `cs_` session row, running the state machine of
 * src/sessions/machine.ts.
 *
 * The row is loaded once, in `blockConcurrencyWhile`, and kept in memory. Every event is decided
 * and applied in one synchronous step, so concurrent confirms cannot interleave and the first
 * valid one wins: the next row goes into memory, its writes (the row and its alarm, one atomic
 * batch) are issued without being awaited, subscribers are sent the row, and the answer is
 * returned. The platform's output gate holds every outgoing message (the RPC answer, WebSocket
 * sends) until those writes are durable, and a failed write resets the object, so no caller and
 * no subscriber ever sees a row that storage could still lose. A waiting page subscribes with a
 * hibernatable WebSocket (durable-objects/push.ts) and receives the row on every change.
 */
import { readConfig } from "../src/config";
import { isSettled, type SessionRow, type WalletProof } from "../src/protocol/index";
import {
  rowAt,
  transition,
  type NewSession,
  type SessionAnswer,
  type SessionEffect,
  type SessionEvent,
  type SessionRules,
} from "../src/sessions/machine";
import { SESSION_NOT_FOUND } from "../src/sessions/refusals";
import { PushObject, type PushView } from "./push";

const ROW_KEY = "row";

export class PairingSession extends PushObject {
  private row: SessionRow | null = null;
  private readonly rules: SessionRules;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.rules = { retentionMs: readConfig(env).sessionRetentionSeconds * 1000 };
    ctx.blockConcurrencyWhile(async () => {
      this.row = (await ctx.storage.get<SessionRow>(ROW_KEY)) ?? null;
    });
  }

  /** Stores a new pending row; 409 when this id is already in use. */
  create(session: NewSession): SessionAnswer {
    return this.apply({ type: "create", session })!;
  }

  /** The current row; 410 once expired, 404 for an id never created (and nothing is written). */
  read(): SessionAnswer {
    return this.apply({ type: "read" })!;
  }

  /** Cancels a pending session; repeating is harmless; a connected session cannot be cancelled. */
  cancel(): SessionAnswer {
    return this.apply({ type: "cancel" })!;
  }

  /** Applies a wallet proof: the first valid confirm wins; the same proof again is answered 200. */
  confirm(proof: WalletProof): SessionAnswer {
    return this.apply({ type: "confirm", proof })!;
  }

  /** Expiry of a pending row, or the end of a settled row's retention. */
  override alarm(): void {
    this.apply({ type: "alarm" });
  }

  protected override view(): PushView | null {
    const row = rowAt(this.row, Date.now());
    return row && { message: JSON.stringify(row), final: isSettled(row.status) ? row.status : null };
  }

  protected override missing() {
    return SESSION_NOT_FOUND;
  }

  /** Decides the event and performs its effects in order, without an await between them. */
  private apply(event: SessionEvent): SessionAnswer | null {
    const next = transition(this.row, event, Date.now(), this.rules);
    this.row = next.row;
    for (const effect of next.effects) this.perform(effect);
    return next.answer;
  }

  private perform(effect: SessionEffect): void {
    // Writes are not awaited: the output gate holds every answer and message until they are durable.
    switch (effect.type) {
      case "store":
        void this.ctx.storage.put(ROW_KEY, effect.row);
        return;
      case "schedule":
        void this.ctx.storage.setAlarm(effect.at);
        return;
      case "notify":
        return this.push({
          message: JSON.stringify(effect.row),
          final: isSettled(effect.row.status) ? effect.row.status : null,
        });
      case "erase":
        this.push(null);
        void this.ctx.storage.deleteAlarm();
        void this.ctx.storage.deleteAll();
        return;
    }
  }
}

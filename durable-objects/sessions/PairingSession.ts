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
import { readConfig } from "../../src/config";
import type { ErrorSpec } from "../../src/errors";
import { log } from "../../src/log";
import type { SessionStatus, WalletProof } from "../../src/protocol/index";
import { isRefusal, type Answer } from "../../src/http/answer";
import { answerWithin, boundRefusal, TELL_TIMEOUT_MS } from "../../src/sessions/bound-onboarding";
import {
  confirmAnswer,
  publicRow,
  rowAt,
  transition,
  type NewSession,
  type SessionAnswer,
  type SessionEffect,
  type SessionEvent,
  type SessionRules,
  type StoredSession,
} from "../../src/sessions/machine";
import { SESSION_OF_ANOTHER_ONBOARDING } from "../../src/onboardings/refusals";
import { SESSION_NOT_CONNECTED, SESSION_NOT_FOUND } from "../../src/sessions/refusals";
import { PushObject, type PushView } from "../push";

const ROW_KEY = "row";

export class PairingSession extends PushObject {
  private row: StoredSession | null = null;
  private readonly rules: SessionRules;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.rules = { retentionMs: readConfig(env).sessionRetentionSeconds * 1000 };
    ctx.blockConcurrencyWhile(async () => {
      this.row = (await ctx.storage.get<StoredSession>(ROW_KEY)) ?? null;
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

  /**
   * Applies a wallet proof: the first valid confirm wins; the same proof again is answered 200. A
   * bound session's confirm answers what its onboarding decided (src/sessions/bound-onboarding.ts),
   * within TELL_TIMEOUT_MS: 200 only when it took this wallet or already holds it.
   */
  async confirm(proof: WalletProof): Promise<SessionAnswer> {
    const answer = this.apply({ type: "confirm", proof });
    await this.telling;
    return confirmAnswer(this.row, answer!);
  }

  /**
   * The address a page may pair onboarding `onboardingId` with: the connected one, unless this
   * session's document was signed for another onboarding.
   */
  payoutFor(onboardingId: string): { address: string } | ErrorSpec {
    const row = rowAt(this.row, Date.now());
    if (row === null) return SESSION_NOT_FOUND;
    if (row.onboarding && row.onboarding.id !== onboardingId) return SESSION_OF_ANOTHER_ONBOARDING;
    return row.status === "connected" && row.address !== null ? { address: row.address } : SESSION_NOT_CONNECTED;
  }

  /** Expiry of a pending row, a tell still owed, or the end of a settled row's retention. */
  override async alarm(): Promise<void> {
    this.apply({ type: "alarm" });
    await this.telling;
  }

  protected override view(): PushView | null {
    const row = rowAt(this.row, Date.now());
    return row && { message: JSON.stringify(publicRow(row)), final: isSettled(row.status) ? row.status : null };
  }

  /** The tell in flight, if one is. */
  private telling: Promise<void> | null = null;

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
      case "tell":
        this.telling ??= this.tell(effect.onboardingId, effect.address).finally(() => (this.telling = null));
        return;
    }
  }

  /**
   * Tells the onboarding's object; its answer (paired, or its refusal, kept for the wallet) settles what is owed; a
   * failure, or no answer within TELL_TIMEOUT_MS, is retried.
   */
  private async tell(onboardingId: string, address: string): Promise<void> {
    const onboardings = this.env.ONBOARDINGS;
    let told: SessionEvent;
    try {
      const stub = onboardings.get(onboardings.idFromName(onboardingId));
      const answer: Answer<unknown> = await answerWithin<Answer<unknown>>(
        stub.pairedBySession(address),
        TELL_TIMEOUT_MS,
      );
      told = { type: "told", ok: true, refused: isRefusal(answer) ? boundRefusal(answer) : null };
    } catch (err) {
      told = { type: "told", ok: false };
      log("warn", "onboarding_tell_failed", { onboarding: onboardingId, error: String(err) });
    }
    this.apply(told);
  }
}

/** True once nothing can change the session's status again: every status but `pending` is settled. */
function isSettled(status: SessionStatus): boolean {
  return status !== "pending";
}

/**
 * The pairing session's state machine: a pure function of (row, event, now) to the next row, the
 * effects that make it durable and visible, and the answer to the caller. The Durable Object only
 * loads the row, runs this, and performs the effects in order (store before notify).
 *
 *   pending ──confirm──▶ connected      (first valid proof wins; the same proof again is 200)
 *   pending ──cancel───▶ cancelled
 *   pending ──alarm────▶ expired        (the alarm fires at expires_at)
 *   settled ──alarm────▶ deleted        (the alarm fires when the retention ends, never before expires_at)
 *
 * A pending row past its expires_at is answered as expired before its alarm runs, without being
 * written: reads never write, and the alarm stores the expiry.
 */
import type { Answer } from "../http/answer";
import { sameProof, type SessionRow, type WalletProof } from "../protocol/index";
import {
  SESSION_ALREADY_CONNECTED,
  SESSION_CANCELLED,
  SESSION_EXISTS,
  SESSION_EXPIRED,
  SESSION_NOT_FOUND,
} from "./refusals";

/** What a create stores: the connect payload's fields, already checked by the Worker. */
export type NewSession = Pick<SessionRow, "session_id" | "chain_id" | "origin" | "expires_at">;

export type SessionEvent =
  | { type: "create"; session: NewSession }
  | { type: "read" }
  | { type: "cancel" }
  | { type: "confirm"; proof: WalletProof }
  | { type: "alarm" };

export type SessionEffect =
  /** Write the row to storage. */
  | { type: "store"; row: SessionRow }
  /** Set the object's one alarm to `at` (ms since the epoch). */
  | { type: "schedule"; at: number }
  /** Send the row to every subscriber; close them once it is settled. */
  | { type: "notify"; row: SessionRow }
  /** Close every subscriber and delete the storage and the alarm. */
  | { type: "erase" };

/** The caller's answer: the row with its HTTP status, or the refusal itself (a value of refusals.ts). */
export type SessionAnswer = Answer<SessionRow>;

export interface Transition {
  row: SessionRow | null;
  effects: SessionEffect[];
  /** The caller's answer; the alarm has no caller. */
  answer: SessionAnswer | null;
}

/** How long a settled row is kept before its storage is deleted. */
export interface SessionRules {
  retentionMs: number;
}

/** The row as it stands at `now`: a pending row past its expires_at reads as expired. */
export function rowAt(row: SessionRow | null, now: number): SessionRow | null {
  if (row?.status === "pending" && now >= Date.parse(row.expires_at)) return { ...row, status: "expired" };
  return row;
}

/** The next state of the session for `event` at `now`. */
export function transition(row: SessionRow | null, event: SessionEvent, now: number, rules: SessionRules): Transition {
  const view = rowAt(row, now);
  const unchanged = (answer: SessionAnswer | null): Transition => ({ row, effects: [], answer });
  const settle = (next: SessionRow): Transition => ({
    row: next,
    // Persist, then broadcast: a subscriber never sees a state that storage could still lose.
    // Kept until its expiry at least: a signed id (signed-ids.ts) could otherwise be stored anew.
    effects: [
      { type: "store", row: next },
      { type: "schedule", at: Math.max(now + rules.retentionMs, Date.parse(next.expires_at)) },
      { type: "notify", row: next },
    ],
    answer: ok(200, next),
  });

  switch (event.type) {
    case "create": {
      if (row) return unchanged(SESSION_EXISTS(event.session.session_id));
      const created: SessionRow = {
        ...event.session,
        status: "pending",
        created_at: new Date(now).toISOString(),
        address: null,
        pubkey_base64: null,
        account_label: null,
        connected_at: null,
      };
      return {
        row: created,
        effects: [
          { type: "store", row: created },
          { type: "schedule", at: Date.parse(created.expires_at) },
        ],
        answer: ok(201, created),
      };
    }
    case "read":
      return unchanged(view === null ? SESSION_NOT_FOUND : view.status === "expired" ? SESSION_EXPIRED : ok(200, view));
    case "cancel":
      if (view === null) return unchanged(SESSION_NOT_FOUND);
      if (view.status === "pending") return settle({ ...view, status: "cancelled" });
      if (view.status === "connected") return unchanged(SESSION_ALREADY_CONNECTED);
      return unchanged(view.status === "expired" ? SESSION_EXPIRED : ok(200, view));
    case "confirm":
      if (view === null) return unchanged(SESSION_NOT_FOUND);
      if (view.status === "pending") {
        const { address, pubkey_base64, account_label } = event.proof;
        return settle({
          ...view,
          status: "connected",
          address,
          pubkey_base64,
          account_label,
          connected_at: new Date(now).toISOString(),
        });
      }
      return unchanged(refusedConfirm(view, event.proof));
    case "alarm":
      if (row === null) return unchanged(null);
      if (row.status === "pending") return { ...settle({ ...row, status: "expired" }), answer: null };
      return { row: null, effects: [{ type: "erase" }], answer: null };
  }
}

/** A confirm of a settled session: 200 for the proof it already holds, a refusal otherwise. */
function refusedConfirm(row: SessionRow, proof: WalletProof): SessionAnswer {
  if (row.status === "connected") return sameProof(row, proof) ? ok(200, row) : SESSION_ALREADY_CONNECTED;
  return row.status === "cancelled" ? SESSION_CANCELLED : SESSION_EXPIRED;
}

function ok(status: 200 | 201, row: SessionRow): SessionAnswer {
  return { status, body: row };
}

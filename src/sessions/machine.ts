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
 * A session a host's onboarding page carried is bound to that onboarding (src/sessions/signed-ids.ts).
 * Its confirm owes the onboarding the paired address: `tell_at` is stored with the connected row,
 * in the same write, and cleared only once the onboarding's object has answered; until then the
 * alarm tries again (with back-off), and the row is not deleted. So no page is needed, and a
 * failed or interrupted call is never lost.
 *
 * A pending row past its expires_at is answered as expired before its alarm runs, without being
 * written: reads never write, and the alarm stores the expiry.
 */
import type { ErrorSpec } from "../errors";
import { isRefusal, type Answer } from "../http/answer";
import { sameProof, type SessionRow, type WalletProof } from "../protocol/index";
import { ONBOARDING_NOT_ANSWERING } from "./bound-onboarding";
import {
  SESSION_ALREADY_CONNECTED,
  SESSION_CANCELLED,
  SESSION_EXISTS,
  SESSION_EXPIRED,
  SESSION_NOT_FOUND,
} from "./refusals";

/** What a create stores: the connect payload's fields, already checked by the Worker (and a signed id's onboarding). */
export type NewSession = Pick<SessionRow, "session_id" | "chain_id" | "origin" | "expires_at"> & {
  onboarding_id?: string;
};

/** The onboarding a session is bound to, and when it is next told of the confirm (null: not owed). */
interface SessionBinding {
  id: string;
  tell_at: number | null;
  /** Failed tells so far: the back-off grows with them. */
  failures: number;
  /** The onboarding refused the wallet (it holds another, it ended), as the confirm answers it; absent: it took it. */
  refused?: ErrorSpec | null;
}

/** The row as the object stores it: the public row, and the binding, which no answer shows. */
export type StoredSession = SessionRow & { onboarding?: SessionBinding };

export type SessionEvent =
  | { type: "create"; session: NewSession }
  | { type: "read" }
  | { type: "cancel" }
  | { type: "confirm"; proof: WalletProof }
  | { type: "alarm" }
  /**
   * The bound onboarding's object answered the tell (`ok`: took the wallet, or `refused` it in the confirm's words),
   * or did not answer in time.
   */
  | { type: "told"; ok: boolean; refused?: ErrorSpec | null };

export type SessionEffect =
  /** Write the row to storage. */
  | { type: "store"; row: StoredSession }
  /** Set the object's one alarm to `at` (ms since the epoch). */
  | { type: "schedule"; at: number }
  /** Send the row to every subscriber; close them once it is settled. */
  | { type: "notify"; row: SessionRow }
  /** Close every subscriber and delete the storage and the alarm. */
  | { type: "erase" }
  /** Tell the bound onboarding's object the confirmed address, then answer `told`. */
  | { type: "tell"; onboardingId: string; address: string };

/** The caller's answer: the row with its HTTP status, or the refusal itself (a value of refusals.ts). */
export type SessionAnswer = Answer<SessionRow>;

export interface Transition {
  row: StoredSession | null;
  effects: SessionEffect[];
  /** The caller's answer; the alarm has no caller. */
  answer: SessionAnswer | null;
}

/** How long a settled row is kept before its storage is deleted. */
export interface SessionRules {
  retentionMs: number;
}

/** A tell that got no answer is tried again after 1 s, 2 s, 4 s… and at most every ten minutes. */
const TELL_RETRY_MS = 1000;
const TELL_RETRY_MAX_MS = 600_000;
/** How long a tell may take before the alarm tries again (the alarm survives an eviction in the middle of it). */
const TELL_LEASE_MS = 30_000;

/** Milliseconds until a tell is tried again after `failures` (1 or more) in a row went unanswered. */
function tellRetryDelayMs(failures: number): number {
  return Math.min(TELL_RETRY_MS * 2 ** (failures - 1), TELL_RETRY_MAX_MS);
}

/** The row as it stands at `now`: a pending row past its expires_at reads as expired. */
export function rowAt<Row extends SessionRow>(row: Row | null, now: number): Row | null {
  if (row?.status === "pending" && now >= Date.parse(row.expires_at)) return { ...row, status: "expired" };
  return row;
}

/** The row as answers and pushes show it: without the binding. */
export function publicRow(row: StoredSession): SessionRow {
  const { onboarding: _binding, ...shown } = row;
  return shown;
}

/** The next state of the session for `event` at `now`. */
export function transition(
  row: StoredSession | null,
  event: SessionEvent,
  now: number,
  rules: SessionRules,
): Transition {
  const view = rowAt(row, now);
  const unchanged = (answer: SessionAnswer | null): Transition => ({ row, effects: [], answer });
  const settle = (next: StoredSession): Transition => ({
    row: next,
    // Persist, then broadcast: a subscriber never sees a state that storage could still lose.
    // Kept until its expiry at least: a signed id (signed-ids.ts) could otherwise be stored anew.
    effects: [
      { type: "store", row: next },
      { type: "schedule", at: settledAlarm(next, now, rules) },
      { type: "notify", row: publicRow(next) },
    ],
    answer: ok(200, next),
  });

  switch (event.type) {
    case "create": {
      if (row) return unchanged(SESSION_EXISTS(event.session.session_id));
      const { onboarding_id, ...session } = event.session;
      const created: StoredSession = {
        ...session,
        ...(onboarding_id ? { onboarding: { id: onboarding_id, tell_at: null, failures: 0 } } : {}),
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
        // A bound session owes its onboarding the address from this very write on.
        const onboarding = view.onboarding && { ...view.onboarding, tell_at: now };
        const connected = settle({
          ...view,
          ...(onboarding ? { onboarding } : {}),
          status: "connected",
          address,
          pubkey_base64,
          account_label,
          connected_at: new Date(now).toISOString(),
        });
        return onboarding ? withTell(connected, onboarding, address, now) : connected;
      }
      // The same proof again while the onboarding is still owed the tell: tell it now, and answer what it decides.
      if (view.onboarding && view.onboarding.tell_at !== null && view.address !== null && sameProof(view, event.proof))
        return withTell(unchanged(ok(200, view)), view.onboarding, view.address, now);
      return unchanged(refusedConfirm(view, event.proof));
    case "alarm": {
      if (row === null) return unchanged(null);
      if (row.status === "pending") return { ...settle({ ...row, status: "expired" }), answer: null };
      const owed = row.onboarding?.tell_at ?? null;
      if (owed !== null && row.address !== null) {
        if (owed > now) return { row, effects: [{ type: "schedule", at: owed }], answer: null };
        return { ...withTell(unchanged(null), row.onboarding!, row.address, now), answer: null };
      }
      return { row: null, effects: [{ type: "erase" }], answer: null };
    }
    case "told": {
      const binding = row?.onboarding;
      if (!row || !binding || binding.tell_at === null) return unchanged(null);
      const failures = event.ok ? 0 : binding.failures + 1;
      const tellAt = event.ok ? null : now + tellRetryDelayMs(failures);
      const refused = event.ok ? (event.refused ?? null) : (binding.refused ?? null);
      const next = { ...row, onboarding: { ...binding, tell_at: tellAt, failures, refused } };
      return {
        row: next,
        effects: [
          { type: "store", row: next },
          { type: "schedule", at: settledAlarm(next, now, rules) },
        ],
        answer: null,
      };
    }
  }
}

/** `transition` with the tell added: its alarm is the tell's lease, so an eviction in the middle of it is retried. */
function withTell(t: Transition, binding: SessionBinding, address: string, now: number): Transition {
  const effects: SessionEffect[] = t.effects.filter((e) => e.type !== "schedule");
  effects.push({ type: "schedule", at: now + TELL_LEASE_MS }, { type: "tell", onboardingId: binding.id, address });
  return { ...t, effects };
}

/**
 * The alarm of a settled row: the next tell while its onboarding is owed the confirm, else the end
 * of its retention, never before its expiry (a signed id (signed-ids.ts) could otherwise be stored anew).
 */
function settledAlarm(row: StoredSession, now: number, rules: SessionRules): number {
  const owed = row.onboarding?.tell_at ?? null;
  if (owed !== null) return owed;
  const settledAt = row.connected_at === null ? now : Math.min(Date.parse(row.connected_at), now);
  return Math.max(settledAt + rules.retentionMs, Date.parse(row.expires_at));
}

/**
 * The wallet's answer to a confirm once the tell it started has settled: for a bound session, what its
 * onboarding decided (refused: that refusal; not answered yet: 503, the tell still owed), else `answer`.
 */
export function confirmAnswer(row: StoredSession | null, answer: SessionAnswer): SessionAnswer {
  const binding = row?.onboarding;
  if (isRefusal(answer) || !binding) return answer;
  if (binding.refused) return binding.refused;
  return binding.tell_at !== null ? ONBOARDING_NOT_ANSWERING : answer;
}

/** A confirm of a settled session: 200 for the proof it already holds, a refusal otherwise. */
function refusedConfirm(row: SessionRow, proof: WalletProof): SessionAnswer {
  if (row.status === "connected") return sameProof(row, proof) ? ok(200, row) : SESSION_ALREADY_CONNECTED;
  return row.status === "cancelled" ? SESSION_CANCELLED : SESSION_EXPIRED;
}

function ok(status: 200 | 201, row: StoredSession): SessionAnswer {
  return { status, body: publicRow(row) };
}

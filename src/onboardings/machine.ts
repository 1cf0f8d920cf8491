/**
 * The onboarding's state machine: a pure function of (state, event, now) to the next state, the
 * effects that make it durable, visible and moving, and the caller's answer. The Durable Object
 * keeps the state, performs the effects in order (store before notify), and feeds what a read of
 * the chain or a delivery attempt found back in as an event.
 *
 *   open ──pair──▶ connected ──chain lists the authorization──▶ authorized ──node pays it──▶ applied
 *                       └──── payout = operator: no authorization needed ────┘
 *   any state before applied ──cancel / a foreign signer──▶ cancelled
 *   any state before applied ──expires_at──▶ expired
 *   ended, every event delivered or given up ──30 days──▶ gone to readers ──its index rows deleted──▶ erased
 *
 * What the state owes other systems is part of it, so a restart at any point resumes it: the
 * index's row (`indexed_version` below `version`, `index_write` when it is tried) and the chain
 * follower's `unwatch` (`watch.unfollow`). Work under way (a read, a delivery, a write) holds its
 * due time a lease ahead, and the one alarm is always `nextWakeAt` of the stored state.
 *
 * `authorized` and `applied` are entered only on the chain's word (`observed`); nothing the
 * browser says moves them. Every event first sees the clock: past `expires_at`, it is expired.
 */
import type { ErrorSpec } from "../errors";
import type { Answer } from "../http/answer";
import {
  isOnboardingEnded,
  type OnboardingEventType,
  type OnboardingStatus,
  type OnboardingView,
  type PayoutSource,
} from "../protocol/index";
import { FOLLOW_LEASE_MS } from "../chain-follower/machine";
import type { OnboardingRow } from "./index-store";
import {
  nextWakeAt,
  pendingHead,
  recordTurn,
  releaseHead,
  resendEvent,
  resendGivenUp,
  retentionOver,
  type DeliveryTurn,
} from "./outbox";
import {
  EVENT_NOT_FOUND,
  NOT_AN_AUTHORIZATION,
  ONBOARDING_ALREADY_PAIRED,
  ONBOARDING_APPLIED,
  ONBOARDING_CANCELLED,
  ONBOARDING_EXISTS,
  ONBOARDING_EXPIRED,
  ONBOARDING_NOT_FOUND,
  ONBOARDING_NOT_PAIRED,
  SIGNER_MISMATCH,
} from "./refusals";
import { checkDelayMs, owedRetryDelayMs } from "./schedule";
import type { OnboardingRecord, OnboardingState, OutboxEvent, Owed } from "./state";

/** What a host's create stores, already validated. */
export interface NewOnboarding {
  id: string;
  operator: string;
  label: string;
  reference: string | null;
  origin: string;
  return_url: string | null;
}

/** What the customer's page says its wallet paired: a relayed pairing session, or the wallet app's bridge. */
export type PairedPayout = { sessionId: string } | { address: string; source: "in_app" };

/**
 * A claimed authorization transaction, once a block holds it: who signed its authorization, or why it authorizes
 * nothing.
 */
export type TxReading = { txhash: string } & ({ signer: string; height: number | null } | { unrelated: string });

/** What a reading of the chain found; each part at the block height it was answered at. */
export interface ChainReading {
  /** `operator_authorizations/<payout>` listed the operator (or not). */
  authorizations?: { listed: boolean; height: number | null };
  /** `node/<operator>`'s payout recipient (null: no such node yet). */
  node?: { payoutRecipient: string | null; height: number | null };
  /** The claimed authorization transaction, found in a block. */
  tx?: TxReading;
}

export type OnboardingEvent =
  | { type: "create"; onboarding: NewOnboarding }
  /** Any read: the host's view, the customer's, the events log. */
  | { type: "read" }
  | { type: "cancel" }
  /** The payout the wallet paired (a relayed session's address is read from the session first). */
  | { type: "pair"; payout: { address: string; source: PayoutSource } }
  /** The wallet app returned the authorization's transaction hash. */
  | { type: "claim"; txhash: string }
  /** What the lookup of a claimed transaction found (`tx` absent: no block holds it yet). */
  | { type: "verified"; tx?: TxReading }
  /** The chain follower: a block at `height` named this onboarding, or the follower's health changed. */
  | { type: "hint"; height: number; following: boolean }
  /** The chain follower's answer to this onboarding's registration: whether it may rely on it. */
  | { type: "followed"; following: boolean }
  /** The alarm: whatever is due now. */
  | { type: "wake" }
  /** A read of the chain begun at `since` found `reading`. */
  | { type: "observed"; reading: ChainReading; since: number }
  /** A turn at delivering event `id`: an attempt, and whether the endpoint is failing. */
  | { type: "delivered"; id: string; turn: DeliveryTurn }
  /** The lane released the onboarding: the endpoint answers again. */
  | { type: "released" }
  /** The lane's probe: attempt the oldest event now, without asking the lane (it is the one trying the endpoint). */
  | { type: "probe" }
  /** The host asked for the events given up to be sent again, or for event `event` (delivered or not) alone. */
  | { type: "resend"; event?: string }
  /** The index write of `version` (null: the deletion of the rows) landed, or D1 refused it. */
  | { type: "indexed"; version: number | null; ok: boolean }
  /** The `unwatch` reached the chain follower, or did not. */
  | { type: "unfollowed"; ok: boolean };

export type OnboardingEffect =
  /** Write the state to storage. */
  | { type: "store"; state: OnboardingState }
  /** Set the one alarm to `at` (ms since the epoch); null: delete it. */
  | { type: "schedule"; at: number | null }
  /** Send the customer's page the record; close it once the onboarding has ended. */
  | { type: "notify"; record: OnboardingRecord }
  /** Read the chain for what the record awaits (and look up `claimed`, a transaction hash), then answer `observed`. */
  | { type: "read"; record: OnboardingRecord; claimed: string | null }
  /** Register with the network's chain follower as waiting on `addresses` (or refresh), then answer `followed`. */
  | { type: "follow"; id: string; addresses: string[] }
  /** Tell the chain follower this onboarding no longer waits for the chain, then answer `unfollowed`. */
  | { type: "unfollow"; id: string }
  /**
   * Attempt to deliver `event` to the host's webhook (first asking the lane unless `admitted`), then answer
   * `delivered`.
   */
  | { type: "deliver"; onboarding: string; event: OutboxEvent; admitted: boolean }
  /** Write the onboarding's row of the index and its events, then answer `indexed`. */
  | { type: "index"; row: OnboardingRow }
  /** Delete the onboarding's rows of the index, then answer `indexed` with a null version. */
  | { type: "unindex"; id: string }
  /** Close every subscriber and delete the storage and the alarm. */
  | { type: "erase" };

export interface Transition {
  state: OnboardingState | null;
  effects: OnboardingEffect[];
  /** The caller's answer: the state with its status, or the refusal. */
  answer: Answer<OnboardingState>;
}

/** What the machine needs besides the state and the clock. */
export interface MachineRules {
  /** The onboarding as an event shows it. */
  present(record: OnboardingRecord): OnboardingView;
  mintEventId(): string;
  /** ONBOARDING_CHECK_SECONDS in ms. */
  checkMs: number;
  /** ONBOARDING_TTL in ms. */
  ttlMs: number;
  /** Whether a webhook is configured: without one, events are kept in the log and never delivered. */
  delivering: boolean;
}

/**
 * How long the work a wake-up starts (a read, a delivery) may take before the alarm tries again:
 * the alarm is the only thing that survives an eviction in the middle of it.
 */
const WORK_LEASE_MS = 30_000;

/** A reading older than the block that named the onboarding is read again this soon… */
const LAGGING_RETRY_MS = 1000;
/** …for this long after the hint at most. */
const HINT_PATIENCE_MS = 30_000;

/** The next state of the onboarding for `event` at `now`. */
export function transition(
  stored: OnboardingState | null,
  event: OnboardingEvent,
  now: number,
  rules: MachineRules,
): Transition {
  if (event.type === "create") {
    if (stored) return { state: stored, effects: [], answer: ONBOARDING_EXISTS };
    const { state, effects } = owedWrites(created(event.onboarding, now, rules), now, rules);
    return {
      state,
      effects: [{ type: "store", state }, { type: "schedule", at: nextWakeAt(state, rules.delivering) }, ...effects],
      answer: { status: 201, body: state },
    };
  }
  if (!stored) return { state: null, effects: [], answer: ONBOARDING_NOT_FOUND };
  const current = expire(stored, now, rules);
  const settle = (next: OnboardingState, refusal: ErrorSpec | null = null) =>
    settled(stored, next, refusal, now, rules);
  const ended = endedRefusal(current);
  if (retentionOver(current, now, rules.delivering)) return afterRetention(current, event, now);

  switch (event.type) {
    case "read":
      return settle(current);
    case "cancel":
      if (current.record.status === "cancelled") return settle(current);
      return ended ? settle(current, ended) : settle(stop(current, "cancelled", undefined, now, rules));
    case "pair": {
      if (ended) return settle(current, ended);
      const { payout } = event;
      if (current.record.payout !== null)
        return settle(current, current.record.payout === payout.address ? null : ONBOARDING_ALREADY_PAIRED);
      const required = payout.address !== current.record.operator;
      let next = enter(
        current,
        { payout: payout.address, payout_source: payout.source, authorization: { required } },
        "connected",
        now,
        rules,
      );
      // A payout that is the operator itself needs no authorization (the chain would refuse one).
      if (!required) next = enter(next, {}, "authorized", now, rules);
      return settle(checkNow(next, now));
    }
    case "claim":
      if (ended) return settle(current, ended);
      if (current.record.payout === null) return settle(current, ONBOARDING_NOT_PAIRED);
      return settle(checkNow({ ...current, watch: { ...current.watch, claimed_txhash: event.txhash } }, now));
    case "verified":
      return settle(event.tx ? applyTx(current, event.tx, now, rules) : current, txRefusal(current, event.tx));
    case "hint": {
      // A block named this onboarding, or the follower's health changed: either way, read the state queries now.
      if (current.watch.next_check_at === null)
        return settle({ ...current, watch: { ...current.watch, following: event.following } });
      const hinted = event.following
        ? { height: Math.max(event.height, current.watch.hinted?.height ?? 0), at: now }
        : current.watch.hinted;
      return settle({
        ...current,
        watch: { ...current.watch, following: event.following, hinted, next_check_at: now },
      });
    }
    case "followed": {
      if (event.following === current.watch.following) return settle(current);
      const next = { ...current, watch: { ...current.watch, following: event.following } };
      // The own check's cadence changes with the follower's health: the safety net, or every ONBOARDING_CHECK_SECONDS.
      return settle(
        next.watch.next_check_at === null || next.watch.next_check_at <= now ? next : scheduleCheck(next, now, rules),
      );
    }
    case "wake": {
      const due = dueWork(current, now, rules);
      const next = settle(due.state);
      // The alarm that woke the object is spent: it is set again, from the stored state alone.
      const at = nextWakeAt(next.state!, rules.delivering);
      return {
        ...next,
        effects: [...next.effects.filter((e) => e.type !== "schedule"), { type: "schedule", at }, ...due.work],
      };
    }
    case "observed":
      return settle(observe(current, event.reading, event.since, rules));
    case "delivered":
      return settle(recordTurn(current, event.id, event.turn, now));
    case "released":
      return settle(releaseHead(current, now));
    case "probe": {
      const head = rules.delivering ? pendingHead(current) : null;
      if (!head) return settle(current);
      const next = settle(leaseEvent(current, head.id, now));
      return {
        ...next,
        effects: [...next.effects, { type: "deliver", onboarding: current.record.id, event: head, admitted: true }],
      };
    }
    case "resend":
      if (event.event === undefined) return settle(resendGivenUp(current, now));
      if (!current.events.some((e) => e.id === event.event)) return settle(current, EVENT_NOT_FOUND);
      return settle(resendEvent(current, event.event, now));
    case "indexed": {
      // A deletion's answer comes only once retention is over (afterRetention); a late one changes nothing here.
      if (event.version === null) return settle(current);
      const write = current.index_write;
      if (event.ok) {
        const indexed_version = Math.max(current.indexed_version, event.version);
        return settle({ ...current, indexed_version, index_write: null });
      }
      return settle({ ...current, index_write: failedOwed(write, now) });
    }
    case "unfollowed": {
      const watch = current.watch;
      // Past the follower's lease it has dropped the registration by itself: nothing more is owed.
      if (event.ok || now >= watch.changed_at + FOLLOW_LEASE_MS)
        return settle({ ...current, watch: { ...watch, registered: false, unfollow: null } });
      return settle({ ...current, watch: { ...watch, unfollow: failedOwed(watch.unfollow, now) } });
    }
  }
}

/**
 * Past its retention the onboarding is gone to every reader; the alarm deletes its index rows
 * (retried like any owed write) and, once D1 took the deletion, erases the object's storage.
 */
function afterRetention(state: OnboardingState, event: OnboardingEvent, now: number): Transition {
  const gone = { state, effects: [], answer: ONBOARDING_NOT_FOUND };
  if (event.type === "indexed" && event.version === null) {
    if (event.ok) return { state: null, effects: [{ type: "erase" }], answer: ONBOARDING_NOT_FOUND };
    const next = { ...state, index_write: failedOwed(state.index_write, now) };
    return { ...gone, state: next, effects: [{ type: "store", state: next }] };
  }
  if (event.type !== "wake") return gone;
  if (!isDue(state.index_write, now)) return { ...gone, effects: [{ type: "schedule", at: state.index_write!.at }] };
  const next = { ...state, index_write: lease(state.index_write, now) };
  return {
    ...gone,
    state: next,
    effects: [
      { type: "store", state: next },
      { type: "schedule", at: next.index_write.at },
      { type: "unindex", id: state.record.id },
    ],
  };
}

/** Whether an owed write is to be tried at `now`: none under way, or its lease ran out. */
function isDue(owed: Owed | null, now: number): boolean {
  return owed === null || owed.at <= now;
}

/** An owed write tried now: due again, if it does not report back, when a failure would retry it. */
function lease(owed: Owed | null, now: number): Owed {
  const failures = owed?.failures ?? 0;
  return { at: now + owedRetryDelayMs(failures + 1), failures };
}

/** An owed write failed: tried again when its lease ends (later after each failure in a row). */
function failedOwed(owed: Owed | null, now: number): Owed {
  return { at: owed?.at ?? now + owedRetryDelayMs(1), failures: (owed?.failures ?? 0) + 1 };
}

/** What `state` owes other systems and is not under way: each written now, its lease stored with it. */
function owedWrites(state: OnboardingState, now: number, rules: MachineRules) {
  const effects: OnboardingEffect[] = [];
  if (state.indexed_version < state.version && isDue(state.index_write, now)) {
    state = { ...state, index_write: lease(state.index_write, now) };
    effects.push({ type: "index", row: indexRow(state, rules) });
  }
  if (state.watch.registered && !waitsForChain(state) && isDue(state.watch.unfollow, now)) {
    state = { ...state, watch: { ...state.watch, unfollow: lease(state.watch.unfollow, now) } };
    effects.push({ type: "unfollow", id: state.record.id });
  }
  return { state, effects };
}

/**
 * The onboarding's row of the index at its version: what the host lists, and every event with whether it was given up.
 */
function indexRow(state: OnboardingState, rules: MachineRules): OnboardingRow {
  return {
    onboarding: rules.present(state.record),
    version: state.version,
    events: state.events.map(({ id, type, created_at, body, failed_at }) => ({
      id,
      type,
      created_at,
      body,
      failed_at,
    })),
  };
}

/** Whether the index shows a change from `before` to `next`: the record, a new event, an event given up or resent. */
function shownChanged(before: OnboardingState, next: OnboardingState): boolean {
  if (next.record !== before.record || next.events.length !== before.events.length) return true;
  return next.events.some((event, i) => event.failed_at !== before.events[i]!.failed_at);
}

/** Event `id` is being attempted now: due again after the work lease if no answer comes back. */
function leaseEvent(state: OnboardingState, id: string, now: number): OnboardingState {
  const events = state.events.map((e) => (e.id === id ? { ...e, next_attempt_at: now + WORK_LEASE_MS } : e));
  return { ...state, events };
}

/**
 * The transition from `before` to `next`: its version one higher when the index shows the change,
 * its owed writes started, stored and scheduled, the page told of a new record; answered with the
 * state or the refusal.
 */
function settled(
  before: OnboardingState,
  next: OnboardingState,
  refusal: ErrorSpec | null,
  now: number,
  rules: MachineRules,
): Transition {
  const versioned =
    next === before ? before : { ...next, version: before.version + (shownChanged(before, next) ? 1 : 0) };
  const { state, effects: writes } = owedWrites(versioned, now, rules);
  const effects: OnboardingEffect[] = [];
  if (state !== before) {
    effects.push({ type: "store", state }, { type: "schedule", at: nextWakeAt(state, rules.delivering) });
    if (state.record !== before.record) effects.push({ type: "notify", record: state.record });
  }
  return { state, effects: [...effects, ...writes], answer: refusal ?? { status: 200, body: state } };
}

/**
 * The work due at `now` (a read of the chain, the delivery of the oldest event still owed), each
 * due again a lease ahead in the state returned, so an eviction in the middle of it is retried.
 */
function dueWork(state: OnboardingState, now: number, rules: MachineRules) {
  const work: OnboardingEffect[] = [];
  const check = state.watch.next_check_at;
  if (check !== null && check <= now) {
    work.push({ type: "read", record: state.record, claimed: state.watch.claimed_txhash });
    let watch = { ...state.watch, next_check_at: now + WORK_LEASE_MS };
    // Its own check (not a block's hint) also registers with the follower, or renews the registration's lease and
    // learns its health.
    if (state.watch.hinted === null && waitsForChain(state)) {
      work.push({ type: "follow", id: state.record.id, addresses: [state.record.operator, state.record.payout!] });
      watch = { ...watch, registered: true };
    }
    state = { ...state, watch };
  }
  const head = rules.delivering ? pendingHead(state) : null;
  if (head?.next_attempt_at != null && head.next_attempt_at <= now) {
    work.push({ type: "deliver", onboarding: state.record.id, event: head, admitted: false });
    state = leaseEvent(state, head.id, now);
  }
  return { state, work };
}

/** A new onboarding, open for the customer until ONBOARDING_TTL from now. */
function created(input: NewOnboarding, now: number, rules: MachineRules): OnboardingState {
  const at = new Date(now).toISOString();
  const record: OnboardingRecord = {
    ...input,
    status: "open",
    payout: null,
    payout_source: null,
    authorization: { required: null },
    node: {},
    created_at: at,
    updated_at: at,
    expires_at: new Date(now + rules.ttlMs).toISOString(),
  };
  return {
    version: 1,
    indexed_version: 0,
    index_write: null,
    released_at: null,
    record,
    events: [],
    watch: {
      next_check_at: null,
      changed_at: now,
      claimed_txhash: null,
      heights: { authorizations: 0, node: 0 },
      following: false,
      hinted: null,
      registered: false,
      unfollow: null,
    },
  };
}

/** The refusal for an onboarding that can no longer change, if it is one. */
function endedRefusal(state: OnboardingState): ErrorSpec | null {
  switch (state.record.status) {
    case "applied":
      return ONBOARDING_APPLIED;
    case "cancelled":
      return ONBOARDING_CANCELLED;
    case "expired":
      return ONBOARDING_EXPIRED;
    default:
      return null;
  }
}

/** The clock passed `expires_at` with nothing applied. */
function expire(state: OnboardingState, now: number, rules: MachineRules): OnboardingState {
  if (isOnboardingEnded(state.record.status) || now < Date.parse(state.record.expires_at)) return state;
  return stop(state, "expired", undefined, now, rules);
}

/** Reads the chain at once (after a pairing or a claimed transaction). */
function checkNow(state: OnboardingState, now: number): OnboardingState {
  return { ...state, watch: { ...state.watch, next_check_at: now } };
}

/**
 * What a reading of the chain means for the onboarding. Answers at a lower height than one
 * already used are older news and change nothing; a claimed transaction signed by another
 * address than the payout stops the onboarding.
 */
function observe(state: OnboardingState, reading: ChainReading, now: number, rules: MachineRules): OnboardingState {
  if (isOnboardingEnded(state.record.status)) return state;
  let next = reading.tx ? applyTx(state, reading.tx, now, rules) : state;
  if (isOnboardingEnded(next.record.status)) return next;
  const auth = reading.authorizations;
  if (auth && isNewer(auth.height, next.watch.heights.authorizations)) {
    next = {
      ...next,
      watch: {
        ...next.watch,
        heights: { ...next.watch.heights, authorizations: auth.height ?? next.watch.heights.authorizations },
      },
    };
    if (auth.listed && next.record.status === "connected") {
      // The block that included the authorization, when its transaction was found, is the better answer than the height
      // it was read at.
      const height = next.record.authorization.txhash !== undefined ? next.record.authorization.height : undefined;
      next = enter(
        next,
        {
          authorization: {
            ...next.record.authorization,
            ...(height === undefined && auth.height !== null ? { height: auth.height } : {}),
          },
        },
        "authorized",
        now,
        rules,
      );
    }
  }
  const node = reading.node;
  if (node && isNewer(node.height, next.watch.heights.node)) {
    const seen = {
      ...(node.payoutRecipient !== null ? { payout_recipient: node.payoutRecipient } : {}),
      ...(node.height !== null ? { height: node.height } : {}),
    };
    next = {
      ...next,
      record: { ...next.record, node: seen },
      watch: { ...next.watch, heights: { ...next.watch.heights, node: node.height ?? next.watch.heights.node } },
    };
    if (
      next.record.status === "authorized" &&
      node.payoutRecipient !== null &&
      node.payoutRecipient === next.record.payout
    ) {
      next = enter(next, {}, "applied", now, rules);
    }
  }
  if (next.record !== state.record && next.record.status === state.record.status)
    next = { ...next, record: { ...next.record, updated_at: new Date(now).toISOString() } };
  return afterHint(scheduleCheck(next, now, rules), reading, now);
}

/**
 * A claimed transaction found in a block: signed by the payout, it is recorded; by another address, it stops the
 * onboarding; unrelated, it is forgotten.
 */
function applyTx(state: OnboardingState, tx: TxReading, now: number, rules: MachineRules): OnboardingState {
  if (tx.txhash !== state.watch.claimed_txhash || isOnboardingEnded(state.record.status)) return state;
  const watch = { ...state.watch, claimed_txhash: null };
  if ("unrelated" in tx) return { ...state, watch };
  if (tx.signer !== state.record.payout) {
    const problem = {
      reason: SIGNER_MISMATCH(tx.signer, "").reason,
      message:
        `The authorization ${tx.txhash} was signed by ${tx.signer}, not by the paired payout address ` +
        `${state.record.payout}`,
    };
    return stop(state, "cancelled", problem, now, rules);
  }
  const included = tx.height !== null ? { height: tx.height } : {};
  return {
    ...state,
    record: { ...state.record, authorization: { ...state.record.authorization, txhash: tx.txhash, ...included } },
    watch,
  };
}

/**
 * What the page is told about its claimed transaction: refused when it authorizes nothing or another address signed it.
 */
function txRefusal(state: OnboardingState, tx: TxReading | undefined): ErrorSpec | null {
  if (!tx || tx.txhash !== state.watch.claimed_txhash) return null;
  if ("unrelated" in tx) return NOT_AN_AUTHORIZATION(state.record.operator);
  return tx.signer === state.record.payout ? null : SIGNER_MISMATCH(tx.signer, state.record.payout ?? "");
}

/** Whether the onboarding waits for the chain: paired and not ended (what it answers the follower's hints). */
export function waitsForChain(state: OnboardingState): boolean {
  return state.record.payout !== null && !isOnboardingEnded(state.record.status);
}

/**
 * After a block named the onboarding at height H, a reading that answered below H (a lagging node)
 * or not at all is older than the block: read again in a second, for at most HINT_PATIENCE_MS
 * (then the usual schedule takes over). A reading at H or above ends the hint.
 */
function afterHint(state: OnboardingState, reading: ChainReading, now: number): OnboardingState {
  const hinted = state.watch.hinted;
  if (hinted === null || state.watch.next_check_at === null) return state;
  const heights = [reading.authorizations?.height, reading.node?.height].filter((h) => h !== undefined);
  const older = heights.length === 0 || heights.some((h) => h !== null && h < hinted.height);
  if (!older || now - hinted.at >= HINT_PATIENCE_MS) return { ...state, watch: { ...state.watch, hinted: null } };
  return { ...state, watch: { ...state.watch, next_check_at: now + LAGGING_RETRY_MS } };
}

/** Sets when the chain is read next: never once ended or before a payout, else by the back-off rule. */
function scheduleCheck(state: OnboardingState, now: number, rules: MachineRules): OnboardingState {
  const waiting = !isOnboardingEnded(state.record.status) && state.record.payout !== null;
  const at = waiting ? now + checkDelayMs(now - state.watch.changed_at, rules.checkMs, state.watch.following) : null;
  return { ...state, watch: { ...state.watch, next_check_at: at } };
}

/** What the reading of a chain answer at `height` may change: null heights (a proxy stripped them) always count. */
function isNewer(height: number | null, highest: number): boolean {
  return height === null || height >= highest;
}

function stop(
  state: OnboardingState,
  status: "cancelled" | "expired",
  problem: OnboardingRecord["problem"],
  now: number,
  rules: MachineRules,
): OnboardingState {
  const next = enter(state, problem ? { problem } : {}, status, now, rules);
  return { ...next, watch: { ...next.watch, next_check_at: null, claimed_txhash: null } };
}

/** Moves to `status` with `changes`, and writes the event that reports it in the same state. */
function enter(
  state: OnboardingState,
  changes: Partial<OnboardingRecord>,
  status: OnboardingStatus,
  now: number,
  rules: MachineRules,
): OnboardingState {
  const at = new Date(now).toISOString();
  const record: OnboardingRecord = { ...state.record, ...changes, status, updated_at: at };
  const type = `onboarding.${status}` as OnboardingEventType;
  const event: OutboxEvent = {
    id: rules.mintEventId(),
    type,
    created_at: at,
    body: JSON.stringify({ type, timestamp: at, data: rules.present(record) }),
    delivered_at: null,
    failed_at: null,
    first_failed_at: null,
    next_attempt_at: now,
    held: null,
    attempts: [],
  };
  return { ...state, record, events: [...state.events, event], watch: { ...state.watch, changed_at: now } };
}

/**
 * The onboarding's state machine: pure functions of (state, event, now) to the next state, the
 * events it owes the host, and the caller's answer. The Durable Object only keeps the state,
 * writes it, reads the chain and delivers events.
 *
 *   open ──pair──▶ connected ──chain lists the authorization──▶ authorized ──node pays it──▶ applied
 *                       └──── payout = operator: no authorization needed ────┘
 *   any state before applied ──cancel / a foreign signer──▶ cancelled
 *   any state before applied ──expires_at──▶ expired
 *
 * `authorized` and `applied` are entered only on the chain's word (`observe`); nothing the
 * browser says moves them.
 */
import type { ErrorSpec } from "../errors";
import { isOnboardingEnded, type OnboardingEventType, type OnboardingStatus, type OnboardingView, type PayoutSource } from "../protocol/index";
import { ALREADY_APPLIED, ALREADY_PAIRED, NOT_PAIRED, ONBOARDING_CANCELLED, ONBOARDING_EXISTS, ONBOARDING_EXPIRED, ONBOARDING_NOT_FOUND } from "./refusals";
import { checkDelayMs } from "./schedule";
import type { OnboardingRecord, OnboardingState, OutboxEvent } from "./state";

/** What a host's create stores, already validated. */
export interface NewOnboarding {
  id: string;
  operator: string;
  label: string;
  reference: string | null;
  origin: string;
  return_url: string | null;
}

/** What a reading of the chain found; each part at the block height it was answered at. */
export interface ChainReading {
  /** `operator_authorizations/<payout>` listed the operator (or not). */
  authorizations?: { listed: boolean; height: number | null };
  /** `node/<operator>`'s payout recipient (null: no such node yet). */
  node?: { payoutRecipient: string | null; height: number | null };
  /** The claimed authorization transaction, found in a block: who signed its MsgAuthorizeOperator. */
  tx?: { txhash: string; signer: string; height: number | null };
}

/** What the machine needs besides the state: how to show an onboarding in an event, and the check interval. */
export interface MachineRules {
  present(record: OnboardingRecord): OnboardingView;
  mintEventId(): string;
  checkMs: number;
}

/** The caller's answer: the status of a success, or the refusal itself. */
export type Answer = { status: 200 | 201 } | ErrorSpec;

/** True for an answer that refuses. */
export function isRefusal(answer: Answer): answer is ErrorSpec {
  return "reason" in answer;
}

export interface Step {
  state: OnboardingState | null;
  answer: Answer;
}

const OK: Answer = { status: 200 };
const refuse = (error: ErrorSpec): Answer => error;

/** A new onboarding, open for the customer until `ttlMs` from now. */
export function create(current: OnboardingState | null, input: NewOnboarding, now: number, ttlMs: number): Step {
  if (current) return { state: current, answer: refuse(ONBOARDING_EXISTS) };
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
    expires_at: new Date(now + ttlMs).toISOString(),
  };
  return {
    state: { record, events: [], watch: { next_check_at: null, changed_at: now, claimed_txhash: null, heights: { authorizations: 0, node: 0 } } },
    answer: { status: 201 },
  };
}

/** The refusal for an onboarding that can no longer change, if it is one. */
function endedRefusal(state: OnboardingState | null): ErrorSpec | null {
  if (!state) return ONBOARDING_NOT_FOUND;
  switch (state.record.status) {
    case "applied":
      return ALREADY_APPLIED;
    case "cancelled":
      return ONBOARDING_CANCELLED;
    case "expired":
      return ONBOARDING_EXPIRED;
    default:
      return null;
  }
}

/** The customer's wallet paired: the payout is set once; the same payout again changes nothing. */
export function pair(state: OnboardingState | null, payout: { address: string; source: PayoutSource }, now: number, rules: MachineRules): Step {
  const ended = endedRefusal(state);
  if (ended) return { state, answer: refuse(ended) };
  const current = state!;
  if (current.record.payout !== null) {
    return { state: current, answer: current.record.payout === payout.address ? OK : refuse(ALREADY_PAIRED) };
  }
  const required = payout.address !== current.record.operator;
  let next = enter(current, { payout: payout.address, payout_source: payout.source, authorization: { required } }, "connected", now, rules);
  // A payout that is the operator itself needs no authorization (the chain would refuse one).
  if (!required) next = enter(next, {}, "authorized", now, rules);
  return { state: { ...next, watch: { ...next.watch, next_check_at: now } }, answer: OK };
}

/** The wallet app returned an authorization's transaction hash: remember it and read the chain at once. */
export function claimAuthorization(state: OnboardingState | null, txhash: string, now: number): Step {
  const ended = endedRefusal(state);
  if (ended) return { state, answer: refuse(ended) };
  const current = state!;
  if (current.record.payout === null) return { state: current, answer: refuse(NOT_PAIRED) };
  return { state: { ...current, watch: { ...current.watch, claimed_txhash: txhash, next_check_at: now } }, answer: OK };
}

/** The host cancels: from any state before `applied`; repeating is harmless. */
export function cancel(state: OnboardingState | null, now: number, rules: MachineRules): Step {
  if (state?.record.status === "cancelled") return { state, answer: OK };
  const ended = endedRefusal(state);
  if (ended) return { state, answer: refuse(ended) };
  return { state: stop(state!, "cancelled", undefined, now, rules), answer: OK };
}

/** The clock passed `expires_at` with nothing applied. */
export function expire(state: OnboardingState, now: number, rules: MachineRules): OnboardingState {
  if (isOnboardingEnded(state.record.status) || now < Date.parse(state.record.expires_at)) return state;
  return stop(state, "expired", undefined, now, rules);
}

/**
 * What a reading of the chain means for the onboarding. Answers at a lower height than one
 * already used are older news and change nothing; a claimed transaction signed by another
 * address than the payout stops the onboarding.
 */
export function observe(state: OnboardingState, reading: ChainReading, now: number, rules: MachineRules): OnboardingState {
  if (isOnboardingEnded(state.record.status)) return state;
  let next = state;
  const { record } = state;
  const tx = reading.tx;
  if (tx && tx.txhash === state.watch.claimed_txhash) {
    if (tx.signer !== record.payout) {
      const problem = { reason: "SIGNER_MISMATCH", message: `The authorization ${tx.txhash} was signed by ${tx.signer}, not by the paired payout address ${record.payout}` };
      return stop(next, "cancelled", problem, now, rules);
    }
    next = { ...next, record: { ...next.record, authorization: { ...next.record.authorization, txhash: tx.txhash } }, watch: { ...next.watch, claimed_txhash: null } };
  }
  const auth = reading.authorizations;
  if (auth && isNewer(auth.height, next.watch.heights.authorizations)) {
    next = { ...next, watch: { ...next.watch, heights: { ...next.watch.heights, authorizations: auth.height ?? next.watch.heights.authorizations } } };
    if (auth.listed && next.record.status === "connected") {
      next = enter(next, { authorization: { ...next.record.authorization, ...(auth.height !== null ? { height: auth.height } : {}) } }, "authorized", now, rules);
    }
  }
  const node = reading.node;
  if (node && isNewer(node.height, next.watch.heights.node)) {
    const seen = { ...(node.payoutRecipient !== null ? { payout_recipient: node.payoutRecipient } : {}), ...(node.height !== null ? { height: node.height } : {}) };
    next = { ...next, record: { ...next.record, node: seen }, watch: { ...next.watch, heights: { ...next.watch.heights, node: node.height ?? next.watch.heights.node } } };
    if (next.record.status === "authorized" && node.payoutRecipient !== null && node.payoutRecipient === next.record.payout) {
      next = enter(next, {}, "applied", now, rules);
    }
  }
  if (next !== state && next.record.status === state.record.status) next = { ...next, record: { ...next.record, updated_at: new Date(now).toISOString() } };
  return scheduleCheck(next, now, rules);
}

/** Sets when the chain is read next: never once ended or before a payout, else by the back-off rule. */
function scheduleCheck(state: OnboardingState, now: number, rules: MachineRules): OnboardingState {
  const waiting = !isOnboardingEnded(state.record.status) && state.record.payout !== null;
  const at = waiting ? now + checkDelayMs(now - state.watch.changed_at, rules.checkMs) : null;
  return { ...state, watch: { ...state.watch, next_check_at: at } };
}

/** What the reading of a chain answer at `height` may change: null heights (a proxy stripped them) always count. */
function isNewer(height: number | null, highest: number): boolean {
  return height === null || height >= highest;
}

function stop(state: OnboardingState, status: "cancelled" | "expired", problem: OnboardingRecord["problem"], now: number, rules: MachineRules): OnboardingState {
  const next = enter(state, problem ? { problem } : {}, status, now, rules);
  return { ...next, watch: { ...next.watch, next_check_at: null, claimed_txhash: null } };
}

/** Moves to `status` with `changes`, and writes the event that reports it in the same state. */
function enter(state: OnboardingState, changes: Partial<OnboardingRecord>, status: OnboardingStatus, now: number, rules: MachineRules): OnboardingState {
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
    next_attempt_at: now,
    attempts: [],
  };
  return { record, events: [...state.events, event], watch: { ...state.watch, changed_at: now } };
}

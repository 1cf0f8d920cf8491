/**
 * The onboarding's life: created open, moved from status to status with the event that reports each
 * move written in the same state, expired by the clock, stopped (cancelled or expired).
 */
import type { ErrorSpec } from "../../errors";
import { isOnboardingEnded, type OnboardingEventType, type OnboardingStatus } from "../../protocol/index";
import { ONBOARDING_APPLIED, ONBOARDING_CANCELLED, ONBOARDING_EXPIRED } from "../refusals";
import type { OnboardingRecord, OnboardingState, OutboxEvent } from "../state";
import type { MachineRules, NewOnboarding } from "./types";

/** A new onboarding, open for the customer until ONBOARDING_TTL from now. */
export function created(input: NewOnboarding, now: number, rules: MachineRules): OnboardingState {
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
export function endedRefusal(state: OnboardingState): ErrorSpec | null {
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
export function expire(state: OnboardingState, now: number, rules: MachineRules): OnboardingState {
  if (isOnboardingEnded(state.record.status) || now < Date.parse(state.record.expires_at)) return state;
  return stop(state, "expired", undefined, now, rules);
}

/** Reads the chain at once (after a pairing or a claimed transaction). */
export function checkNow(state: OnboardingState, now: number): OnboardingState {
  return { ...state, watch: { ...state.watch, next_check_at: now } };
}

export function stop(
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
export function enter(
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

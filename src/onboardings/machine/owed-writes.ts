/**
 * What the onboarding owes other systems, kept in its state so that a restart resumes it: the
 * index's row (written after every change the index shows, its version one higher) and the chain
 * follower's `unwatch`; each tried under a lease, retried after a failure; and the settling of a
 * transition (stored, scheduled, the page told) with those writes started.
 */
import type { ErrorSpec } from "../../errors";
import type { OnboardingRow } from "../index/store";
import { nextWakeAt } from "../outbox";
import { ONBOARDING_NOT_FOUND } from "../refusals";
import type { OnboardingState, Owed } from "../state";
import { waitsForChain } from "./chain-observation";
import { owedRetryDelayMs } from "./schedule";
import type { MachineRules, OnboardingEffect, OnboardingEvent, Transition } from "./types";

/**
 * Past its retention the onboarding is gone to every reader; the alarm deletes its index rows
 * (retried like any owed write) and, once D1 took the deletion, erases the object's storage.
 */
export function afterRetention(state: OnboardingState, event: OnboardingEvent, now: number): Transition {
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
export function failedOwed(owed: Owed | null, now: number): Owed {
  return { at: owed?.at ?? now + owedRetryDelayMs(1), failures: (owed?.failures ?? 0) + 1 };
}

/** What `state` owes other systems and is not under way: each written now, its lease stored with it. */
export function owedWrites(state: OnboardingState, now: number, rules: MachineRules) {
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

/**
 * The transition from `before` to `next`: its version one higher when the index shows the change,
 * its owed writes started, stored and scheduled, the page told of a new record; answered with the
 * state or the refusal.
 */
export function settled(
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

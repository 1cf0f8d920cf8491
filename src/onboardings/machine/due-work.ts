/**
 * The work a wake-up starts (a read of the chain, the delivery of the oldest event still owed),
 * each due again a lease ahead in the state, so an eviction in the middle of it is retried.
 */
import { pendingHead } from "../outbox";
import type { OnboardingState } from "../state";
import { waitsForChain } from "./chain-observation";
import type { MachineRules, OnboardingEffect } from "./types";

/**
 * How long the work a wake-up starts (a read, a delivery) may take before the alarm tries again:
 * the alarm is the only thing that survives an eviction in the middle of it.
 */
const WORK_LEASE_MS = 30_000;

/** Event `id` is being attempted now: due again after the work lease if no answer comes back. */
export function leaseEvent(state: OnboardingState, id: string, now: number): OnboardingState {
  const events = state.events.map((e) => (e.id === id ? { ...e, next_attempt_at: now + WORK_LEASE_MS } : e));
  return { ...state, events };
}

/**
 * The work due at `now` (a read of the chain, the delivery of the oldest event still owed), each
 * due again a lease ahead in the state returned, so an eviction in the middle of it is retried.
 */
export function dueWork(state: OnboardingState, now: number, rules: MachineRules) {
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

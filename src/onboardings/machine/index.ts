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
import type { ErrorSpec } from "../../errors";
import { recordTurn } from "../../webhooks/delivery-turn";
import { nextWakeAt, pendingHead, releaseHead, resendGivenUp, retentionOver } from "../outbox";
import { FOLLOW_LEASE_MS } from "../../chain-follower/machine";
import { ONBOARDING_ALREADY_PAIRED, ONBOARDING_EXISTS, ONBOARDING_NOT_FOUND, ONBOARDING_NOT_PAIRED } from "../refusals";
import type { OnboardingState } from "../state";
import { applyTx, observe, scheduleCheck, txRefusal } from "./chain-observation";
import { dueWork, leaseEvent } from "./due-work";
import { checkNow, created, endedRefusal, enter, expire, stop } from "./lifecycle";
import { afterRetention, failedOwed, owedWrites, settled } from "./owed-writes";
import type { MachineRules, OnboardingEvent, Transition } from "./types";

export type {
  ChainReading,
  MachineRules,
  NewOnboarding,
  OnboardingEffect,
  OnboardingEvent,
  PairedPayout,
  Transition,
  TxReading,
} from "./types";
export { waitsForChain } from "./chain-observation";

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
      return settle(resendGivenUp(current, now));
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

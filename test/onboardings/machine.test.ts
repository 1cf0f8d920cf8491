import { describe, expect, it } from "vitest";
import { transition, type ChainReading, type MachineRules, type OnboardingEvent } from "../../src/onboardings/machine";
import { eventsLog, nextWakeAt } from "../../src/onboardings/outbox";
import type { DeliveryTurn } from "../../src/webhooks/lane-state";
import { checkDelayMs } from "../../src/onboardings/machine/schedule";
import { eventRetryDelayMs } from "../../src/webhooks/delivery-policy";
import type { OnboardingState } from "../../src/onboardings/state";
import { accountAddress } from "./helpers";

// The figures docs/ARCHITECTURE.md and docs/HOSTS.md state, written out rather than imported, so a changed one fails.
/** A wake-up's work is leased: its read or delivery moves 30 s on. */
const WORK_LEASE_MS = 30_000;
/** An event is given up 3 days after its first failed attempt. */
const GIVE_UP_AFTER_MS = 3 * 86_400_000;
/** A held event asks its lane again after 5 minutes at first… */
const HELD_RECHECK_MS = 5 * 60_000;
/** …and at most every 6 hours (1/12 of the 3 days). */
const MAX_HELD_RECHECK_MS = 6 * 3_600_000;
/** An ended onboarding is deleted 30 days after it ended. */
const RETENTION_MS = 30 * 86_400_000;
/** While the chain follower follows, the onboarding's own check is a safety net every 10 minutes. */
const SAFETY_NET_MS = 10 * 60_000;
/** A follower registration not renewed for 30 minutes is dropped. */
const FOLLOW_LEASE_MS = 30 * 60_000;

const T0 = Date.parse("2026-11-01T00:00:00Z");
const TTL = 7 * 86_400_000;
let n = 0;
const rules: MachineRules = {
  present: (record) => ({ ...record, url: "u" }) as never,
  mintEventId: () => `msg_${++n}`,
  checkMs: 6000,
  ttlMs: TTL,
  delivering: true,
};
const operator = accountAddress();
const payout = accountAddress();

/** The state after `event` at `now`. */
const after = (state: OnboardingState | null, event: OnboardingEvent, now: number) =>
  transition(state, event, now, rules).state!;
const observe = (state: OnboardingState, reading: ChainReading, now: number) =>
  after(state, { type: "observed", reading, since: now }, now);
const cancel = (state: OnboardingState, now: number) => transition(state, { type: "cancel" }, now, rules);
const readAt = (state: OnboardingState, now: number) => after(state, { type: "read" }, now);

const newOnboarding = {
  id: "ob_1",
  operator,
  label: "",
  reference: null,
  origin: "https://edge.test",
  return_url: null,
};
function opened(): OnboardingState {
  return after(null, { type: "create", onboarding: newOnboarding }, T0);
}
function connected(): OnboardingState {
  return after(opened(), { type: "pair", payout: { address: payout, source: "relay" } }, T0 + 1000);
}

describe("the onboarding state machine", () => {
  it("moves to authorized and applied only on readings of the chain, one event per status, in order", () => {
    let state = connected();
    state = observe(state, { authorizations: { listed: false, height: 10 } }, T0 + 2000);
    expect(state.record.status).toBe("connected");
    state = observe(
      state,
      { authorizations: { listed: true, height: 12 }, node: { payoutRecipient: operator, height: 12 } },
      T0 + 3000,
    );
    expect(state.record).toMatchObject({
      status: "authorized",
      authorization: { required: true, height: 12 },
      node: { payout_recipient: operator, height: 12 },
    });
    state = observe(state, { node: { payoutRecipient: payout, height: 15 } }, T0 + 4000);
    expect(state.record.status).toBe("applied");
    expect(state.events.map((e) => e.type)).toEqual([
      "onboarding.connected",
      "onboarding.authorized",
      "onboarding.applied",
    ]);
    expect(state.events.map((e) => JSON.parse(e.body).data.status)).toEqual(["connected", "authorized", "applied"]);
    expect(state.watch.next_check_at).toBeNull();
  });

  it("ignores an answer at a lower height than one already read", () => {
    let state = observe(connected(), { authorizations: { listed: false, height: 20 } }, T0 + 2000);
    state = observe(state, { authorizations: { listed: true, height: 19 } }, T0 + 3000);
    expect(state.record.status).toBe("connected");
    state = observe(state, { authorizations: { listed: true, height: 21 } }, T0 + 4000);
    expect(state.record.status).toBe("authorized");
    state = observe(state, { node: { payoutRecipient: payout, height: 30 } }, T0 + 5000);
    const older = observe(
      { ...state, record: { ...state.record, status: "authorized" } },
      { node: { payoutRecipient: operator, height: 29 } },
      T0 + 6000,
    );
    expect(older.record.node).toEqual({ payout_recipient: payout, height: 30 });
  });

  it(
    "gives the authorization the height of the block that included its transaction, when the transaction " +
      "was found",
    () => {
      let state = after(connected(), { type: "claim", txhash: "AB" }, T0 + 1500);
      state = observe(state, { tx: { txhash: "AB", signer: payout, height: 41 } }, T0 + 2000);
      state = observe(state, { authorizations: { listed: true, height: 43 } }, T0 + 3000);
      expect(state.record).toMatchObject({ status: "authorized", authorization: { txhash: "AB", height: 41 } });
      // Without a transaction to go by, it is the height the service read the authorization at.
      const read = observe(connected(), { authorizations: { listed: true, height: 43 } }, T0 + 3000);
      expect(read.record.authorization.height).toBe(43);
    },
  );

  it("stops on a claimed authorization signed by another address, with the reason for the host", () => {
    let state = connected();
    state = after(state, { type: "claim", txhash: "AA" }, T0 + 1500);
    state = observe(state, { tx: { txhash: "AA", signer: accountAddress(), height: 5 } }, T0 + 2000);
    expect(state.record).toMatchObject({ status: "cancelled", problem: { reason: "SIGNER_MISMATCH" } });
    expect(state.events.at(-1)!.type).toBe("onboarding.cancelled");
  });

  it("cancels any state before applied, never after; expires only past expires_at", () => {
    expect(cancel(opened(), T0).state!.record.status).toBe("cancelled");
    expect(cancel(connected(), T0).state!.record.status).toBe("cancelled");
    const applied = observe(
      observe(connected(), { authorizations: { listed: true, height: 1 } }, T0),
      { node: { payoutRecipient: payout, height: 2 } },
      T0,
    );
    expect(cancel(applied, T0).answer).toMatchObject({ status: 409, reason: "ONBOARDING_APPLIED" });
    expect(readAt(opened(), T0 + TTL - 1).record.status).toBe("open");
    expect(readAt(opened(), T0 + TTL).record.status).toBe("expired");
    expect(readAt(applied, T0 + 30 * 86_400_000).record.status).toBe("applied");
  });

  it(
    "reads the chain every ONBOARDING_CHECK_SECONDS for 30 minutes after a change, then slower, at most every 5 " +
      "minutes",
    () => {
      expect(checkDelayMs(0, 6000)).toBe(6000);
      expect(checkDelayMs(30 * 60_000, 6000)).toBe(6000);
      expect(checkDelayMs(3_600_000, 6000)).toBe(12_000);
      expect(checkDelayMs(100 * 3_600_000, 6000)).toBe(300_000);
      const state = observe(connected(), {}, T0 + 2 * 3_600_000);
      expect(state.watch.next_check_at! - (T0 + 2 * 3_600_000)).toBe(checkDelayMs(2 * 3_600_000 - 1000, 6000));
    },
  );
});

describe("what each step does", () => {
  it(
    "stores before it notifies, and moves the version on with " +
      "every change the index shows, never for a read or an attempt",
    () => {
      const open = opened();
      expect(open.version).toBe(1);
      const paired = transition(open, { type: "pair", payout: { address: payout, source: "relay" } }, T0 + 1000, rules);
      expect(paired.effects.map((e) => e.type)).toEqual(["store", "schedule", "notify"]);
      expect(paired.state!.version).toBe(2);
      const read = transition(paired.state, { type: "read" }, T0 + 2000, rules);
      expect(read.effects).toEqual([]);
      expect(read.state).toBe(paired.state);
      // A reading that finds nothing new moves the next check, which is stored, but not the version.
      const nothing = observe(paired.state!, { authorizations: { listed: false, height: 3 } }, T0 + 3000);
      expect(nothing.version).toBe(2);
      const attempted = after(
        nothing,
        {
          type: "delivered",
          id: nothing.events[0]!.id,
          turn: { askedAt: T0 + 3000, attempt: { at: new Date(T0 + 3000).toISOString(), status: 204, ms: 1 } },
        },
        T0 + 3000,
      );
      expect(attempted.version).toBe(2);
      expect(cancel(attempted, T0 + 4000).state!.version).toBe(3);
    },
  );

  it("owes the index every version in its stored state: written with the change, retried from the alarm alone", () => {
    const created = transition(null, { type: "create", onboarding: newOnboarding }, T0, rules);
    expect(created.effects.map((e) => e.type)).toEqual(["store", "schedule", "index"]);
    const open = created.state!;
    // The write under way is leased in the state: the stored alarm is no later than its retry.
    expect(open.index_write).toEqual({ at: T0 + 5_000, failures: 0 });
    expect(nextWakeAt(open, true)).toBe(T0 + 5_000);
    expect(created.effects[2]).toMatchObject({ type: "index", row: { version: 1, events: [] } });
    // Refused: due again when the lease ends, later after each failure.
    const refused = after(open, { type: "indexed", version: 1, ok: false }, T0 + 100);
    expect(refused.index_write).toEqual({ at: T0 + 5_000, failures: 1 });
    // A change meanwhile does not start a second write; the state (as a restart finds it) still owes it.
    const paired = after(refused, { type: "pair", payout: { address: payout, source: "relay" } }, T0 + 200);
    expect(paired.index_write).toEqual(refused.index_write);
    const woken = transition(paired, { type: "wake" }, T0 + 5_000, rules);
    expect(woken.effects.filter((e) => e.type === "index")).toMatchObject([{ row: { version: 2 } }]);
    expect(woken.state!.index_write).toEqual({ at: T0 + 15_000, failures: 1 });
    const landed = transition(woken.state, { type: "indexed", version: 2, ok: true }, T0 + 5_100, rules);
    expect(landed.state).toMatchObject({ indexed_version: 2, index_write: null });
    expect(landed.effects.map((e) => e.type)).toEqual(["store", "schedule"]);
  });

  it("owes the chain follower its unwatch until one lands, and no longer than the follower's lease", () => {
    const woken = transition(connected(), { type: "wake" }, T0 + 1000, rules);
    expect(woken.state!.watch.registered).toBe(true);
    const ended = cancel(woken.state!, T0 + 2000);
    expect(ended.effects.filter((e) => e.type === "unfollow")).toEqual([{ type: "unfollow", id: "ob_1" }]);
    const failed = after(ended.state, { type: "unfollowed", ok: false }, T0 + 2100);
    expect(failed.watch.unfollow).toEqual({ at: T0 + 7000, failures: 1 });
    expect(nextWakeAt(failed, true)).toBeLessThanOrEqual(T0 + 7000);
    const retried = transition(failed, { type: "wake" }, T0 + 7000, rules);
    expect(retried.effects.filter((e) => e.type === "unfollow")).toHaveLength(1);
    const done = after(retried.state, { type: "unfollowed", ok: true }, T0 + 7100);
    expect(done.watch).toMatchObject({ registered: false, unfollow: null });
    // Past the follower's lease the registration is gone by itself: a failure then owes nothing more.
    const late = after(retried.state, { type: "unfollowed", ok: false }, T0 + 2000 + FOLLOW_LEASE_MS);
    expect(late.watch).toMatchObject({ registered: false, unfollow: null });
    const within = after(retried.state, { type: "unfollowed", ok: false }, T0 + 2000 + FOLLOW_LEASE_MS - 1);
    expect(within.watch).toMatchObject({ registered: true, unfollow: { failures: 2 } });
  });

  it("wakes to read the chain and deliver the oldest event owed, each leased in the stored state", () => {
    const paired = after(connected(), { type: "indexed", version: 2, ok: true }, T0 + 1000);
    const woken = transition(paired, { type: "wake" }, T0 + 1000, rules);
    expect(woken.effects.map((e) => e.type)).toEqual(["store", "schedule", "read", "follow", "deliver"]);
    // The alarm is the stored state's: the work's lease, as an eviction in the middle of it would need.
    expect(woken.effects[1]).toEqual({ type: "schedule", at: T0 + 1000 + WORK_LEASE_MS });
    expect(woken.effects[0]).toEqual({ type: "store", state: woken.state });
    expect(nextWakeAt(woken.state!, true)).toBe(T0 + 1000 + WORK_LEASE_MS);
    expect(woken.effects[4]).toMatchObject({ event: { type: "onboarding.connected" }, admitted: false });
    // Nothing due: the spent alarm is set again for what comes first.
    const open = after(opened(), { type: "indexed", version: 1, ok: true }, T0);
    const idle = transition(open, { type: "wake" }, T0 + 1, rules);
    expect(idle.effects).toEqual([{ type: "schedule", at: T0 + TTL }]);
    expect(
      transition(paired, { type: "wake" }, T0 + 1000, { ...rules, delivering: false }).effects.map((e) => e.type),
    ).toEqual(["store", "schedule", "read", "follow"]);
  });

  it(
    "deletes an ended onboarding once its retention is " +
      "over, and not before: its index rows first, then its storage",
    () => {
      const quiet = { ...rules, delivering: false };
      const cancelled = after(cancel(opened(), T0).state, { type: "indexed", version: 2, ok: true }, T0);
      expect(transition(cancelled, { type: "wake" }, T0 + RETENTION_MS - 1, quiet).effects).toEqual([
        { type: "schedule", at: T0 + RETENTION_MS },
      ]);
      const over = transition(cancelled, { type: "wake" }, T0 + RETENTION_MS, quiet);
      expect(over.effects.map((e) => e.type)).toEqual(["store", "schedule", "unindex"]);
      // Gone to every reader meanwhile.
      expect(transition(over.state, { type: "read" }, T0 + RETENTION_MS + 1, quiet).answer).toMatchObject({
        status: 404,
      });
      const refused = transition(
        over.state,
        { type: "indexed", version: null, ok: false },
        T0 + RETENTION_MS + 1,
        quiet,
      );
      expect(refused.state!.index_write).toMatchObject({ failures: 1 });
      expect(
        transition(refused.state, { type: "indexed", version: null, ok: true }, T0 + RETENTION_MS + 2, quiet),
      ).toMatchObject({ state: null, effects: [{ type: "erase" }] });
    },
  );

  it(
    "reads the chain at once on the follower's hint, and only every 10 minutes while the follower is " + "following",
    () => {
      const read = observe(connected(), {}, T0 + 2000);
      expect(read.watch.next_check_at).toBe(T0 + 2000 + 6000);
      const hinted = after(read, { type: "hint", height: 5, following: true }, T0 + 3000);
      expect(hinted.watch.next_check_at).toBe(T0 + 3000);
      const atBlock = { authorizations: { listed: false, height: 5 } };
      expect(observe(hinted, atBlock, T0 + 3000).watch.next_check_at).toBe(T0 + 3000 + SAFETY_NET_MS);
      const failing = after(
        observe(hinted, atBlock, T0 + 3000),
        { type: "hint", height: 5, following: false },
        T0 + 4000,
      );
      expect(observe(failing, atBlock, T0 + 4000).watch.next_check_at).toBe(T0 + 4000 + 6000);
      // Nothing awaited from the chain: a hint reads nothing.
      expect(after(opened(), { type: "hint", height: 5, following: true }, T0).watch.next_check_at).toBeNull();
    },
  );

  it(
    "answers a claimed transaction: another signer stops the onboarding, one that authorizes nothing is refused " +
      "and forgotten",
    () => {
      const claimed = after(connected(), { type: "claim", txhash: "AA" }, T0 + 2000);
      expect(claimed.watch).toMatchObject({ claimed_txhash: "AA", next_check_at: T0 + 2000 });
      const foreign = transition(
        claimed,
        { type: "verified", tx: { txhash: "AA", signer: operator, height: 3 } },
        T0 + 2100,
        rules,
      );
      expect(foreign.answer).toMatchObject({ reason: "SIGNER_MISMATCH" });
      expect(foreign.state!.record.status).toBe("cancelled");
      const unrelated = transition(
        claimed,
        { type: "verified", tx: { txhash: "AA", unrelated: "no authorization" } },
        T0 + 2100,
        rules,
      );
      expect(unrelated.answer).toMatchObject({ reason: "NOT_AN_AUTHORIZATION" });
      expect(unrelated.state!.watch.claimed_txhash).toBeNull();
      const pending = transition(claimed, { type: "verified" }, T0 + 2100, rules);
      expect(pending.answer).toMatchObject({ status: 200 });
      expect(pending.state!.watch.claimed_txhash).toBe("AA");
      expect(transition(opened(), { type: "claim", txhash: "AA" }, T0, rules).answer).toMatchObject({
        reason: "ONBOARDING_NOT_PAIRED",
      });
    },
  );
});

describe("delivery: held while the endpoint fails, refused events backed off alone, given up after 3 days", () => {
  const failed = (at: number) => ({ askedAt: at, attempt: { at: new Date(at).toISOString(), status: 500, ms: 1 } });
  const ok = (at: number) => ({ askedAt: at, attempt: { at: new Date(at).toISOString(), status: 204, ms: 1 } });
  /** An onboarding that owes the host two events (connected, authorized), both written at T0. */
  const owing = () => after(opened(), { type: "pair", payout: { address: operator, source: "in_app" } }, T0);
  const turn = (state: OnboardingState, index: number, t: DeliveryTurn, now: number) =>
    after(state, { type: "delivered", id: state.events[index]!.id, turn: t }, now);

  it(
    "holds a failed event, and the ones after it, until the lane releases it; the log says what each " + "waits for",
    () => {
      let state = owing();
      const [first, second] = state.events;
      expect(nextWakeAt(state, true)).toBe(T0);
      state = turn(state, 0, { ...failed(T0), failingSince: T0 }, T0 + 10);
      // Held: no timer of its own but the safety net of asking the lane again.
      expect(state.events[0]).toMatchObject({
        held: { failing_since: T0 },
        next_attempt_at: T0 + 10 + HELD_RECHECK_MS,
      });
      expect(state.events[1]).toEqual(second);
      const log = eventsLog(state, true).events;
      expect(log[0]).toMatchObject({
        next_attempt_at: null,
        waiting_for: { endpoint_failing_since: new Date(T0).toISOString() },
      });
      expect(log[1]).toMatchObject({ next_attempt_at: null, waiting_for: { event: first!.id } });
      // Released: due at once, and the next one after it.
      state = after(state, { type: "released" }, T0 + 60_000);
      expect(state.events[0]).toMatchObject({ held: null, next_attempt_at: T0 + 60_000 });
      expect(eventsLog(state, true).events[0]).toMatchObject({
        next_attempt_at: new Date(T0 + 60_000).toISOString(),
        waiting_for: null,
      });
      state = turn(state, 0, ok(T0 + 60_001), T0 + 60_001);
      expect(transition(state, { type: "wake" }, T0 + 60_002, rules).effects.at(-1)).toMatchObject({
        type: "deliver",
        event: { id: second!.id },
      });
      // Without a webhook nothing is ever tried.
      expect(eventsLog(owing(), false).events.map((e) => e.next_attempt_at)).toEqual([null, null]);
    },
  );

  it("sends what it holds at once when one of its events is delivered (its probe, or a resent event)", () => {
    const state = owing();
    const held = {
      ...state.events[1]!,
      held: { failing_since: T0, last_error: "HTTP 503" },
      next_attempt_at: T0 + 9e5,
    };
    const delivered = turn({ ...state, events: [state.events[0]!, held] }, 0, ok(T0 + 100), T0 + 100);
    expect(delivered.events[1]).toMatchObject({ held: null, next_attempt_at: T0 + 100 });
  });

  it("does not hold an event on a lane's 'wait' answered before the lane released the onboarding", () => {
    // The turn asked at T0 + 10 and was told to wait; the release (the outage over) reached the object first.
    let state = after(owing(), { type: "released" }, T0 + 20);
    state = turn(state, 0, { askedAt: T0 + 10, failingSince: T0 }, T0 + 30);
    expect(state.events[0]).toMatchObject({ held: null, next_attempt_at: T0 + 30 });
    // Asked after the release: the outage is a new one, and the event waits.
    state = turn(state, 0, { askedAt: T0 + 40, failingSince: T0 + 35 }, T0 + 50);
    expect(state.events[0]).toMatchObject({ held: { failing_since: T0 + 35 } });
  });

  it(
    "gives an event up 3 days after its first failed " +
      "attempt, never from when it was written, however few attempts",
    () => {
      let state = owing();
      // The first event fails for 3 days and is given up; the second was written at T0 as well.
      state = turn(state, 0, failed(T0), T0);
      state = turn(state, 0, failed(T0 + GIVE_UP_AFTER_MS - 1), T0 + GIVE_UP_AFTER_MS - 1);
      expect(state.events[0]!.failed_at).toBeNull();
      // Held, it is due again no later than the moment it is given up.
      expect(state.events[0]!.next_attempt_at).toBe(T0 + GIVE_UP_AFTER_MS);
      state = turn(state, 0, { askedAt: T0 + GIVE_UP_AFTER_MS, failingSince: T0 }, T0 + GIVE_UP_AFTER_MS);
      expect(state.events[0]).toMatchObject({ failed_at: new Date(T0 + GIVE_UP_AFTER_MS).toISOString(), held: null });
      expect(state.events[0]!.attempts).toHaveLength(2);
      // Counted from the first failure, not from when it was written: first failing an hour after it was written,
      // an event is still owed 3 days after it was written.
      let late = turn(owing(), 0, failed(T0 + 3_600_000), T0 + 3_600_000);
      late = turn(late, 0, failed(T0 + GIVE_UP_AFTER_MS + 1), T0 + GIVE_UP_AFTER_MS + 1);
      expect(late.events[0]!.failed_at).toBeNull();
      // The second event was held behind it all along: its clock starts with the first's, not 3 days later.
      expect(state.events[1]!.first_failed_at).toBe(T0);
      // Given up only once it has had an attempt of its own: held without one, it waits for the lane's probe.
      const start = T0 + GIVE_UP_AFTER_MS + 1;
      state = turn(state, 1, { askedAt: start, failingSince: T0 }, start);
      expect(state.events[1]).toMatchObject({ failed_at: null, attempts: [] });
      state = turn(state, 1, failed(start + 5_000), start + 5_000);
      expect(state.events[1]).toMatchObject({ failed_at: new Date(start + 5_000).toISOString() });
    },
  );

  it("backs an event the receiver alone refuses off on its own schedule, without holding it for the lane", () => {
    const refused = (at: number, status = 400) => ({
      askedAt: at,
      attempt: { at: new Date(at).toISOString(), status, ms: 1 },
    });
    let state = turn(owing(), 0, refused(T0), T0);
    expect(state.events[0]).toMatchObject({ held: null, next_attempt_at: T0 + 5_000, first_failed_at: T0 });
    state = turn(state, 0, refused(T0 + 5_000, 422), T0 + 5_000);
    expect(state.events[0]).toMatchObject({ held: null, next_attempt_at: T0 + 5_000 + eventRetryDelayMs(2) });
    expect([1, 2, 3, 4, 5, 6, 9].map(eventRetryDelayMs)).toEqual([
      5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
    ]);
    // 408 and 429 are the endpoint's: held.
    expect(turn(owing(), 0, refused(T0, 429), T0).events[0]!.held).not.toBeNull();
    expect(eventsLog(state, true).events[0]).toMatchObject({ waiting_for: null });
  });

  it("asks the lane again less often the longer a held event waits, from 5 minutes to 6 hours", () => {
    let state = turn(owing(), 0, { askedAt: T0, failingSince: T0 }, T0);
    expect(state.events[0]!.next_attempt_at).toBe(T0 + HELD_RECHECK_MS);
    const later = T0 + 12 * 3_600_000;
    state = turn(state, 0, { askedAt: later, failingSince: T0 }, later);
    expect(state.events[0]!.next_attempt_at).toBe(later + 3_600_000);
    const days = T0 + 2.5 * 86_400_000;
    state = turn(state, 0, { askedAt: days, failingSince: T0 }, days);
    expect(state.events[0]!.next_attempt_at).toBe(days + 5 * 3_600_000);
    // Never later than the moment it is given up (which comes before the 6-hour ceiling would).
    const late = T0 + GIVE_UP_AFTER_MS - 3_600_000;
    state = turn(state, 0, { askedAt: late, failingSince: T0 }, late);
    expect(state.events[0]!.next_attempt_at).toBe(T0 + GIVE_UP_AFTER_MS);
    expect(MAX_HELD_RECHECK_MS).toBe(GIVE_UP_AFTER_MS / 12);
  });

  it("sends given-up events again when asked, and the index is owed the change", () => {
    let state = turn(owing(), 0, failed(T0), T0);
    state = turn(state, 0, failed(T0 + GIVE_UP_AFTER_MS), T0 + GIVE_UP_AFTER_MS);
    expect(state.events[0]!.failed_at).not.toBeNull();
    const version = state.version;
    const resent = transition(state, { type: "resend" }, T0 + GIVE_UP_AFTER_MS + 1, rules);
    expect(resent.state!.events[0]).toMatchObject({
      failed_at: null,
      first_failed_at: null,
      next_attempt_at: T0 + GIVE_UP_AFTER_MS + 1,
    });
    expect(resent.state!.version).toBe(version + 1);
  });

  it("never erases an ended onboarding while an event is neither delivered nor given up", () => {
    let state = after(owing(), { type: "cancel" }, T0 + 1);
    state = turn(state, 0, { askedAt: T0 + 2, failingSince: T0 }, T0 + 2);
    const late = Date.parse(state.record.updated_at) + RETENTION_MS + 1;
    const woken = transition(state, { type: "wake" }, late, rules);
    expect(woken.effects.map((e) => e.type)).not.toContain("erase");
    expect(woken.effects.map((e) => e.type)).not.toContain("unindex");
    expect(woken.answer).toMatchObject({ status: 200 });
  });

  it("lets the event after a given-up one go: a given-up event holds nothing back", () => {
    let state = turn(owing(), 0, failed(T0), T0);
    state = turn(state, 0, failed(T0 + GIVE_UP_AFTER_MS), T0 + GIVE_UP_AFTER_MS);
    const now = T0 + GIVE_UP_AFTER_MS + 1;
    expect(state.events[0]!.failed_at).not.toBeNull();
    expect(state.events[0]!.delivered_at).toBeNull();
    const woken = transition(state, { type: "wake" }, now, rules);
    expect(woken.effects.find((e) => e.type === "deliver")).toMatchObject({ event: { id: state.events[1]!.id } });
    expect(eventsLog(state, true).events[1]).toMatchObject({ waiting_for: null });
  });
});

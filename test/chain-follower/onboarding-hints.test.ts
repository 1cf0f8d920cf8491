/**
 * The onboarding's side of the chain follower, in its machine: it registers with the follower on
 * its own checks (not on a block's hint), learns from the answer whether its check is the
 * 10-minute safety net or every ONBOARDING_CHECK_SECONDS, never concludes on state older than the
 * block that named it (a lagging node is read again shortly), and unregisters once it stops
 * waiting for the chain.
 */
import { describe, expect, it } from "vitest";
import { transition, type ChainReading, type MachineRules, type OnboardingEvent } from "../../src/onboardings/machine";
import type { OnboardingState } from "../../src/onboardings/state";
import { accountAddress } from "../helpers/sessions";

// The figures docs/ARCHITECTURE.md states, written out rather than imported, so a changed one fails.
/** A woken onboarding whose reading lags the block that named it reads again a second later… */
const LAGGING_RETRY_MS = 1000;
/** …for up to 30 s. */
const HINT_PATIENCE_MS = 30_000;
/** While the follower follows, the onboarding's own check is a safety net every 10 minutes. */
const SAFETY_NET_MS = 10 * 60_000;

const T0 = Date.parse("2026-11-01T00:00:00Z");
const CHECK_MS = 6000;
let n = 0;
const rules: MachineRules = {
  present: (record) => ({ ...record, url: "u" }) as never,
  mintEventId: () => `msg_${++n}`,
  checkMs: CHECK_MS,
  ttlMs: 7 * 86_400_000,
  delivering: false,
};
const operator = accountAddress();
const payout = accountAddress();

const step = (state: OnboardingState | null, event: OnboardingEvent, now: number) =>
  transition(state, event, now, rules);
const after = (state: OnboardingState | null, event: OnboardingEvent, now: number) => step(state, event, now).state!;
const observe = (state: OnboardingState, reading: ChainReading, now: number) =>
  after(state, { type: "observed", reading, since: now }, now);

function connected(): OnboardingState {
  const opened = after(
    null,
    {
      type: "create",
      onboarding: { id: "ob_1", operator, label: "", reference: null, origin: "https://edge.test", return_url: null },
    },
    T0,
  );
  return after(opened, { type: "pair", payout: { address: payout, source: "relay" } }, T0 + 1000);
}

describe("an onboarding and the chain follower", () => {
  it(
    "registers its operator and payout with the follower when its own check is due, not when a block's hint makes " +
      "it read",
    () => {
      const own = step(connected(), { type: "wake" }, T0 + 1000).effects;
      expect(own).toContainEqual({ type: "follow", id: "ob_1", addresses: [operator, payout] });
      expect(own.some((e) => e.type === "read")).toBe(true);

      const hinted = after(
        observe(connected(), { authorizations: { listed: false, height: 10 } }, T0 + 1000),
        { type: "hint", height: 12, following: true },
        T0 + 2000,
      );
      const onHint = step(hinted, { type: "wake" }, T0 + 2000).effects;
      expect(onHint.some((e) => e.type === "read")).toBe(true);
      expect(onHint.some((e) => e.type === "follow")).toBe(false);
    },
  );

  it("checks every 10 minutes while the follower follows, every ONBOARDING_CHECK_SECONDS when it does not", () => {
    const read = observe(connected(), { authorizations: { listed: false, height: 10 } }, T0 + 1000);
    expect(read.watch.next_check_at).toBe(T0 + 1000 + CHECK_MS);
    const following = after(read, { type: "followed", following: true }, T0 + 1500);
    expect(following.watch.next_check_at).toBe(T0 + 1500 + SAFETY_NET_MS);
    expect(observe(following, { authorizations: { listed: false, height: 11 } }, T0 + 2000).watch.next_check_at).toBe(
      T0 + 2000 + SAFETY_NET_MS,
    );
    const alone = after(following, { type: "followed", following: false }, T0 + 3000);
    expect(alone.watch.next_check_at).toBe(T0 + 3000 + CHECK_MS);
    // The same answer again changes nothing.
    expect(step(alone, { type: "followed", following: false }, T0 + 3500).state).toBe(alone);
  });

  it(
    "reads again within a second while its reading is older than the block that named it, and concludes only on a " +
      "reading at that height",
    () => {
      const waiting = after(
        observe(connected(), { authorizations: { listed: false, height: 10 } }, T0 + 1000),
        { type: "followed", following: true },
        T0 + 1000,
      );
      const hinted = after(waiting, { type: "hint", height: 20, following: true }, T0 + 2000);
      // A lagging node answers below 20: not listed yet there, and no conclusion from it.
      const lagging = observe(hinted, { authorizations: { listed: false, height: 18 } }, T0 + 2000);
      expect(lagging.record.status).toBe("connected");
      expect(lagging.watch.next_check_at).toBe(T0 + 2000 + LAGGING_RETRY_MS);
      // No answer at all is no newer either.
      expect(observe(lagging, {}, T0 + 3000).watch.next_check_at).toBe(T0 + 3000 + LAGGING_RETRY_MS);
      const caughtUp = observe(
        lagging,
        { authorizations: { listed: true, height: 20 }, node: { payoutRecipient: operator, height: 20 } },
        T0 + 3000,
      );
      expect(caughtUp.record.status).toBe("authorized");
      expect(caughtUp.watch.hinted).toBeNull();
      expect(caughtUp.watch.next_check_at).toBe(T0 + 3000 + SAFETY_NET_MS);
    },
  );

  it(
    "reads at once when the reading under way when a block named it began before the hint (it could not show that " +
      "block), a second later only when the node itself lags",
    () => {
      const waiting = after(
        observe(connected(), { authorizations: { listed: false, height: 10 } }, T0 + 1000),
        { type: "followed", following: true },
        T0 + 1000,
      );
      // A read begins at T0 + 1900, block 20 is told at T0 + 2000, and the read answers at height 19 after that.
      const hinted = after(waiting, { type: "hint", height: 20, following: true }, T0 + 2000);
      const under = after(
        hinted,
        { type: "observed", reading: { authorizations: { listed: false, height: 19 } }, since: T0 + 1900 },
        T0 + 2050,
      );
      expect(under.watch.hinted).not.toBeNull();
      // Due now: the hinted read is not put off by the second a lagging node gets.
      expect(under.watch.next_check_at).toBeLessThanOrEqual(T0 + 2050);
      expect(step(under, { type: "wake" }, T0 + 2050).effects.some((e) => e.type === "read")).toBe(true);
      // A read begun after the hint that still answers below it is a lagging node's: a second later.
      const lagging = after(
        under,
        { type: "observed", reading: { authorizations: { listed: false, height: 19 } }, since: T0 + 2060 },
        T0 + 2100,
      );
      expect(lagging.watch.next_check_at).toBe(T0 + 2060 + LAGGING_RETRY_MS);
    },
  );

  it("gives a lagging node at most HINT_PATIENCE_MS, then keeps its usual schedule", () => {
    const hinted = after(
      after(connected(), { type: "followed", following: true }, T0 + 1000),
      { type: "hint", height: 20, following: true },
      T0 + 2000,
    );
    const late = observe(hinted, { authorizations: { listed: false, height: 18 } }, T0 + 2000 + HINT_PATIENCE_MS);
    expect(late.watch.hinted).toBeNull();
    expect(late.watch.next_check_at).toBe(T0 + 2000 + HINT_PATIENCE_MS + SAFETY_NET_MS);
  });

  it("unregisters from the follower once it no longer waits for the chain (applied, cancelled, expired)", () => {
    // Registered by its first own check.
    const registered = () => after(connected(), { type: "wake" }, T0 + 1000);
    const authorized = observe(
      registered(),
      { authorizations: { listed: true, height: 10 }, node: { payoutRecipient: operator, height: 10 } },
      T0 + 2000,
    );
    const applied = step(
      authorized,
      { type: "observed", reading: { node: { payoutRecipient: payout, height: 11 } }, since: T0 + 3000 },
      T0 + 3000,
    );
    expect(applied.state!.record.status).toBe("applied");
    expect(applied.effects).toContainEqual({ type: "unfollow", id: "ob_1" });
    expect(step(registered(), { type: "cancel" }, T0 + 2000).effects).toContainEqual({ type: "unfollow", id: "ob_1" });
    expect(step(registered(), { type: "read" }, T0 + 8 * 86_400_000).effects).toContainEqual({
      type: "unfollow",
      id: "ob_1",
    });
    // Never registered, never unregistered.
    const opened = after(
      null,
      {
        type: "create",
        onboarding: { id: "ob_2", operator, label: "", reference: null, origin: "https://edge.test", return_url: null },
      },
      T0,
    );
    expect(step(opened, { type: "cancel" }, T0 + 1000).effects.some((e) => e.type === "unfollow")).toBe(false);
    // Paired but never yet registered (its first check not run): nothing to unregister either.
    expect(step(connected(), { type: "cancel" }, T0 + 2000).effects.some((e) => e.type === "unfollow")).toBe(false);
  });
});

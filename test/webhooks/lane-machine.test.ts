import { describe, expect, it } from "vitest";
import {
  ANSWERING,
  laneTransition,
  MAX_PROBE_MS,
  probeDelayMs,
  PROBE_LEASE_MS,
  type LaneEffect,
  type LaneEvent,
  type LaneState,
  type Waiter,
} from "../../src/webhooks/lane";

const T0 = Date.parse("2026-11-01T00:00:00Z");

/** A lane and its waiting onboardings, changed only through the effects, as the Durable Object changes them. */
function lane() {
  let state: LaneState = ANSWERING;
  const waiting = new Map<string, Waiter>();
  const log: LaneEffect[] = [];
  const step = (event: LaneEvent, now: number) => {
    const next = laneTransition(state, waiting, event, now);
    state = next.lane;
    for (const effect of next.effects) {
      log.push(effect);
      if (effect.type === "wait") waiting.set(effect.onboarding, effect.waiter);
      if (effect.type === "forget") for (const id of effect.onboardings) waiting.delete(id);
    }
    return next;
  };
  return {
    step,
    waiting,
    log,
    get state() {
      return state;
    },
  };
}
const of = (effects: LaneEffect[], type: LaneEffect["type"]) => effects.filter((e) => e.type === type);

describe("the webhook lane", () => {
  it("says go and writes nothing while the endpoint answers", () => {
    const l = lane();
    expect(l.step({ type: "admit", onboarding: "a" }, T0)).toEqual({
      lane: ANSWERING,
      effects: [],
      answer: { go: true },
    });
  });

  it("holds every onboarding once an attempt fails, and probes with one of them 5 s after the failure", () => {
    const l = lane();
    const failed = l.step({ type: "failed", onboarding: "a" }, T0);
    expect(failed.answer).toEqual({ go: false, failing_since: T0, next_probe_at: T0 + 5000 });
    expect(of(failed.effects, "schedule")).toEqual([{ type: "schedule", at: T0 + 5000 }]);
    expect(l.step({ type: "admit", onboarding: "b" }, T0 + 100).answer).toEqual({
      go: false,
      failing_since: T0,
      next_probe_at: T0 + 5000,
    });
    expect([...l.waiting.keys()]).toEqual(["a", "b"]);
    // Early: nothing but the alarm again.
    expect(l.step({ type: "alarm" }, T0 + 4999).effects).toEqual([{ type: "schedule", at: T0 + 5000 }]);
    const probe = l.step({ type: "alarm" }, T0 + 5000);
    expect(of(probe.effects, "probe")).toEqual([{ type: "probe", onboarding: "a" }]);
    // One probe at a time: another onboarding asking meanwhile waits and schedules nothing sooner.
    const during = l.step({ type: "admit", onboarding: "c" }, T0 + 6000);
    expect(during.answer).toMatchObject({ go: false });
    expect(of(during.effects, "schedule")).toEqual([]);
    expect(l.step({ type: "alarm" }, T0 + 6000).effects).toEqual([
      { type: "schedule", at: T0 + 5000 + PROBE_LEASE_MS },
    ]);
    const failedProbe = l.step({ type: "probed", onboarding: "a", outcome: "failed" }, T0 + 5200);
    expect(of(failedProbe.effects, "schedule")).toEqual([{ type: "schedule", at: T0 + 10_200 }]);
    // The next probe goes to an onboarding that has not been one yet, the longest waiting first.
    expect(of(l.step({ type: "alarm" }, T0 + 10_200).effects, "probe")).toEqual([{ type: "probe", onboarding: "b" }]);
  });

  it("tries the endpoint every 5 s for 10 minutes, then less often, never less than every 5 minutes", () => {
    expect(probeDelayMs(0)).toBe(5000);
    expect(probeDelayMs(10 * 60_000)).toBe(5000);
    expect(probeDelayMs(3_600_000)).toBe(30_000);
    expect(probeDelayMs(100 * 3_600_000)).toBe(MAX_PROBE_MS);
    const l = lane();
    l.step({ type: "failed", onboarding: "a" }, T0);
    let at = T0 + 5000;
    const gaps: number[] = [];
    while (at < T0 + 48 * 3_600_000) {
      l.step({ type: "alarm" }, at);
      const next = l.step({ type: "probed", onboarding: "a", outcome: "failed" }, at).lane.next_probe_at!;
      gaps.push(next - at);
      at = next;
    }
    expect(gaps.slice(0, 100).every((gap) => gap === 5000)).toBe(true);
    expect(Math.max(...gaps)).toBe(MAX_PROBE_MS);
    expect(gaps.every((gap, i) => i === 0 || gap >= gaps[i - 1]!)).toBe(true);
  });

  it("ends the outage with the first delivered probe and releases every waiting onboarding at once", () => {
    const l = lane();
    l.step({ type: "failed", onboarding: "a" }, T0);
    for (const id of ["b", "c", "d"]) l.step({ type: "admit", onboarding: id }, T0 + 1);
    l.step({ type: "alarm" }, T0 + 5000);
    const ended = l.step({ type: "probed", onboarding: "a", outcome: "delivered" }, T0 + 5100);
    expect(ended.lane).toEqual(ANSWERING);
    expect(of(ended.effects, "release")).toEqual([{ type: "release", onboardings: ["b", "c", "d"] }]);
    expect(l.waiting.size).toBe(0);
    expect(l.step({ type: "admit", onboarding: "e" }, T0 + 5200).answer).toEqual({ go: true });
    // A release that did not get through is owed: the alarm sends it again.
    l.step({ type: "unreleased", onboarding: "c" }, T0 + 5300);
    expect(of(l.step({ type: "alarm" }, T0 + 6300).effects, "release")).toEqual([
      { type: "release", onboardings: ["c"] },
    ]);
  });

  it(
    "probes with another onboarding at once when the chosen one has nothing left, and at once when the " + "host asks",
    () => {
      const l = lane();
      l.step({ type: "failed", onboarding: "a" }, T0);
      l.step({ type: "admit", onboarding: "b" }, T0 + 1);
      l.step({ type: "alarm" }, T0 + 5000);
      const nothing = l.step({ type: "probed", onboarding: "a", outcome: "nothing" }, T0 + 5001);
      expect(of(nothing.effects, "schedule")).toEqual([{ type: "schedule", at: T0 + 5001 }]);
      expect(of(l.step({ type: "alarm" }, T0 + 5001).effects, "probe")).toEqual([{ type: "probe", onboarding: "b" }]);
      l.step({ type: "probed", onboarding: "b", outcome: "failed" }, T0 + 5100);
      const retry = l.step({ type: "retry" }, T0 + 6000);
      expect(retry.answer).toEqual({ go: false, failing_since: T0, next_probe_at: T0 + 6000 });
      expect(of(retry.effects, "schedule")).toEqual([{ type: "schedule", at: T0 + 6000 }]);
    },
  );
});

import { describe, expect, it } from "vitest";
import {
  ANSWERING,
  laneTransition,
  type LaneEffect,
  type LaneEvent,
  type LaneState,
  type Waiter,
} from "../../src/webhooks/lane";
import { probeDelayMs } from "../../src/webhooks/lane-state";

// The figures docs/ARCHITECTURE.md and docs/HOSTS.md state, written out rather than imported, so a changed one fails.
/** The endpoint is never left untried longer than 5 minutes. */
const MAX_PROBE_MS = 5 * 60_000;
/** A probe not heard of within 30 s is taken as lost, and another goes. */
const PROBE_LEASE_MS = 30_000;
/** The lane's alarm 10 s on is the lease of the releases still owed. */
const RELEASE_LEASE_MS = 10_000;

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
    const failed = l.step({ type: "failed", onboarding: "a", error: "HTTP 503" }, T0);
    expect(failed.answer).toEqual({ go: false, failing_since: T0, next_probe_at: T0 + 5000, last_error: "HTTP 503" });
    expect(of(failed.effects, "schedule")).toEqual([{ type: "schedule", at: T0 + 5000 }]);
    expect(l.step({ type: "admit", onboarding: "b" }, T0 + 100).answer).toEqual({
      go: false,
      failing_since: T0,
      next_probe_at: T0 + 5000,
      last_error: "HTTP 503",
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
    expect(probeDelayMs(11 * 60_000)).toBe(5500);
    expect(probeDelayMs(3_600_000)).toBe(30_000);
    expect(probeDelayMs(10 * 3_600_000)).toBe(MAX_PROBE_MS);
    expect(probeDelayMs(10 * 3_600_000 - 120_000)).toBeLessThan(MAX_PROBE_MS);
    expect(probeDelayMs(100 * 3_600_000)).toBe(MAX_PROBE_MS);
    const l = lane();
    l.step({ type: "failed", onboarding: "a", error: "HTTP 503" }, T0);
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

  it("ends the outage with the first probe the receiver answers, and keeps each release owed until it lands", () => {
    for (const outcome of ["delivered", "refused"] as const) {
      const l = lane();
      l.step({ type: "failed", onboarding: "a", error: "HTTP 503" }, T0);
      for (const id of ["b", "c", "d"]) l.step({ type: "admit", onboarding: id }, T0 + 1);
      l.step({ type: "alarm" }, T0 + 5000);
      const ended = l.step({ type: "probed", onboarding: "a", outcome }, T0 + 5100);
      // A refusal ends the outage too (the endpoint answers), and is counted toward "refuses everything".
      const refusals = { count: 1, onboardings: ["a"] };
      expect(ended.lane).toEqual(outcome === "delivered" ? ANSWERING : { ...ANSWERING, refusals });
      // The probe "a" is released too: its next event may have asked while the answer was on its way.
      expect(of(ended.effects, "release")).toEqual([{ type: "release", onboardings: ["a", "b", "c", "d"] }]);
      // Owed until each lands: the alarm is the lease of the releases.
      expect(of(ended.effects, "schedule")).toEqual([{ type: "schedule", at: T0 + 5100 + RELEASE_LEASE_MS }]);
      expect([...l.waiting.keys()]).toEqual(["a", "b", "c", "d"]);
      l.step({ type: "released", onboarding: "a" }, T0 + 5300);
      const go = outcome === "delivered" ? { go: true } : { go: true, counting: true };
      expect(l.step({ type: "admit", onboarding: "e" }, T0 + 5200).answer).toEqual(go);
      l.step({ type: "released", onboarding: "b" }, T0 + 5300);
      l.step({ type: "released", onboarding: "d" }, T0 + 5300);
      // A release that did not land (or a lane evicted in the middle): the alarm sends it again.
      expect(of(l.step({ type: "alarm" }, T0 + 5100 + RELEASE_LEASE_MS).effects, "release")).toEqual([
        { type: "release", onboardings: ["c"] },
      ]);
      expect(of(l.step({ type: "released", onboarding: "c" }, T0 + 16_000).effects, "schedule")).toEqual([
        { type: "schedule", at: null },
      ]);
      expect(l.waiting.size).toBe(0);
    }
  });

  it("tells a held onboarding the endpoint's last error", () => {
    const l = lane();
    l.step({ type: "failed", onboarding: "a", error: "HTTP 503" }, T0);
    expect(l.step({ type: "admit", onboarding: "b" }, T0 + 1).answer).toMatchObject({ last_error: "HTTP 503" });
    l.step({ type: "alarm" }, T0 + 5000);
    l.step({ type: "probed", onboarding: "a", outcome: "failed", error: "no answer within 10 s" }, T0 + 5100);
    expect(l.state.last_error).toBe("no answer within 10 s");
  });

  it(
    "probes with another onboarding at once when the " + "chosen one has nothing left, and at once when the host asks",
    () => {
      const l = lane();
      l.step({ type: "failed", onboarding: "a", error: "HTTP 503" }, T0);
      l.step({ type: "admit", onboarding: "b" }, T0 + 1);
      l.step({ type: "alarm" }, T0 + 5000);
      const nothing = l.step({ type: "probed", onboarding: "a", outcome: "nothing" }, T0 + 5001);
      expect(of(nothing.effects, "schedule")).toEqual([{ type: "schedule", at: T0 + 5001 }]);
      expect(of(l.step({ type: "alarm" }, T0 + 5001).effects, "probe")).toEqual([{ type: "probe", onboarding: "b" }]);
      l.step({ type: "probed", onboarding: "b", outcome: "failed" }, T0 + 5100);
      const retry = l.step({ type: "retry" }, T0 + 6000);
      expect(retry.answer).toEqual({ go: false, failing_since: T0, next_probe_at: T0 + 6000, last_error: "HTTP 503" });
      expect(of(retry.effects, "schedule")).toEqual([{ type: "schedule", at: T0 + 6000 }]);
    },
  );
});

describe("a receiver that refuses everything", () => {
  const refuse = (l: ReturnType<typeof lane>, onboarding: string, at: number) =>
    l.step({ type: "refused", onboarding, error: "HTTP 401" }, at);

  it("fails at the 4th refusal in a row from 2 onboardings with no 2xx between, not at the 3rd", () => {
    const l = lane();
    expect(refuse(l, "a", T0).answer).toEqual({ go: true, counting: true });
    refuse(l, "b", T0 + 1);
    expect(refuse(l, "a", T0 + 5000).answer).toEqual({ go: true, counting: true });
    expect(l.state.failing_since).toBeNull();
    const failing = refuse(l, "b", T0 + 5001);
    expect(failing.answer).toMatchObject({
      go: false,
      failing_since: T0 + 5001,
      last_error: "HTTP 401 to every event",
    });
    expect(l.state.failing_since).toBe(T0 + 5001);
    expect([...l.waiting.keys()]).toEqual(["b"]);
    expect(l.step({ type: "admit", onboarding: "c" }, T0 + 5002).answer).toMatchObject({ go: false });
  });

  it("is one onboarding's own affair however many times it is refused", () => {
    const l = lane();
    for (let n = 0; n < 20; n++) expect(refuse(l, "a", T0 + n).answer).toEqual({ go: true, counting: true });
    expect(l.state.failing_since).toBeNull();
  });

  it("starts counting again after a 2xx; admission asks for the 2xx only while it counts", () => {
    const l = lane();
    refuse(l, "a", T0);
    refuse(l, "b", T0 + 1);
    refuse(l, "a", T0 + 2);
    expect(l.step({ type: "answered", onboarding: "c" }, T0 + 3).lane.refusals).toEqual({ count: 0, onboardings: [] });
    expect(l.step({ type: "admit", onboarding: "c" }, T0 + 4).answer).toEqual({ go: true });
    expect(l.step({ type: "answered", onboarding: "c" }, T0 + 5).effects).toEqual([]);
    refuse(l, "b", T0 + 6);
    expect(l.state.failing_since).toBeNull();
  });

  it("stays failing when a probe is refused, and a probe delivered ends it", () => {
    const l = lane();
    for (const [id, n] of [
      ["a", 0],
      ["b", 1],
      ["a", 2],
      ["b", 3],
    ] as const)
      refuse(l, id, T0 + n);
    l.step({ type: "alarm" }, T0 + 5003);
    const refused = l.step({ type: "probed", onboarding: "b", outcome: "refused", error: "HTTP 401" }, T0 + 5100);
    expect(refused.answer).toMatchObject({ go: false, last_error: "HTTP 401 to every event" });
    expect(l.state).toMatchObject({ failing_since: T0 + 3, next_probe_at: T0 + 5100 + 5000 });
    l.step({ type: "admit", onboarding: "c" }, T0 + 5200);
    l.step({ type: "alarm" }, T0 + 10_100);
    l.step({ type: "probed", onboarding: "c", outcome: "delivered" }, T0 + 10_200);
    expect(l.state).toEqual(ANSWERING);
  });
});

/**
 * No event is given up without an attempt of its own, however many onboardings a failing endpoint
 * holds: the lane's probes go to the attempts coming due first, at 5 s apart while they could not
 * otherwise all be made by their time (docs/HOSTS.md, section 6). The figures are written out.
 */
import { describe, expect, it } from "vitest";
import { attemptsPressing } from "../../src/webhooks/attempt-due";
import { ANSWERING, laneTransition, type LaneEvent, type LaneState, type Waiter } from "../../src/webhooks/lane";

const T0 = Date.parse("2026-11-01T00:00:00Z");
const DAY = 86_400_000;
const GIVE_UP_AFTER_MS = 3 * DAY;

/** A lane and its waiting onboardings, changed only through the effects, as the Durable Object changes them. */
function lane() {
  let state: LaneState = ANSWERING;
  const waiting = new Map<string, Waiter>();
  let alarm: number | null = null;
  const probes: { onboarding: string; at: number }[] = [];
  const step = (event: LaneEvent, now: number) => {
    const next = laneTransition(state, waiting, event, now);
    state = next.lane;
    for (const effect of next.effects) {
      if (effect.type === "wait") waiting.set(effect.onboarding, effect.waiter);
      if (effect.type === "forget") for (const id of effect.onboardings) waiting.delete(id);
      if (effect.type === "schedule") alarm = effect.at;
      if (effect.type === "probe") probes.push({ onboarding: effect.onboarding, at: now });
    }
    return next;
  };
  return { step, waiting, probes, alarm: () => alarm, state: () => state };
}

describe("attempts come due", () => {
  it("presses when the i-th earliest due is within i probes", () => {
    const waiting = new Map<string, Waiter>([
      ["a", { since: T0, probed_at: null, due: T0 + 10_000 }],
      ["b", { since: T0, probed_at: null, due: T0 + 10_000 }],
      ["c", { since: T0, probed_at: null, due: T0 + 10_000 }],
    ]);
    expect(attemptsPressing(waiting, T0 - 5_001, 5_000)).toBe(false);
    expect(attemptsPressing(waiting, T0 - 5_000, 5_000)).toBe(true);
    expect(attemptsPressing(new Map([["d", { since: T0, probed_at: null, due: null }]]), T0, 5_000)).toBe(false);
  });

  it("probes the attempt due first while attempts press, before the onboarding that waited longest", () => {
    const l = lane();
    l.step({ type: "failed", onboarding: "first", error: "HTTP 503" }, T0 - DAY);
    l.waiting.delete("first");
    // Nobody waits when its probe comes: the next onboarding held sets the next probe.
    l.step({ type: "alarm" }, T0 - DAY + 5_000);
    l.step({ type: "admit", onboarding: "long-waiting", due: T0 + GIVE_UP_AFTER_MS }, T0);
    l.step({ type: "admit", onboarding: "due-soon", due: T0 + 4_000 }, T0 + 1);
    const now = l.alarm()!;
    expect(now).toBeLessThanOrEqual(T0 + 4_000);
    l.step({ type: "alarm" }, now);
    expect(l.probes.map((p) => p.onboarding)).toEqual(["due-soon"]);
  });

  it("gives each of 2000 onboardings held in a day-old outage an attempt in its 3 days, one every 5 s at most", () => {
    const l = lane();
    // The outage is a day old: the cadence is one probe every 5 minutes (864 in 3 days, fewer than 2000).
    l.step({ type: "failed", onboarding: "first", error: "HTTP 503" }, T0 - DAY);
    l.waiting.delete("first");
    // Nobody waits when its probe comes: the next onboarding held sets the next probe.
    l.step({ type: "alarm" }, T0 - DAY + 5_000);
    const ids = Array.from({ length: 2000 }, (_, i) => `ob_${i}`);
    for (const id of ids) l.step({ type: "admit", onboarding: id, due: T0 + GIVE_UP_AFTER_MS }, T0);
    const attempted = new Set<string>();
    let now = T0;
    for (let n = 0; n < 10_000 && attempted.size < ids.length; n++) {
      now = Math.max(now, l.alarm() ?? now);
      const started = l.probes.length;
      l.step({ type: "alarm" }, now);
      const probe = l.probes[started];
      if (!probe) continue;
      attempted.add(probe.onboarding);
      l.step({ type: "probed", onboarding: probe.onboarding, outcome: "failed", error: "HTTP 503" }, now + 100);
      now += 100;
    }
    expect(attempted.size).toBe(ids.length);
    expect(now).toBeLessThanOrEqual(T0 + GIVE_UP_AFTER_MS);
    const gaps = l.probes.slice(1).map((p, i) => p.at - l.probes[i]!.at);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(5_000);
  });
});

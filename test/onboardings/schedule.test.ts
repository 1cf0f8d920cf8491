/**
 * The onboarding's clocks at the figures docs/ARCHITECTURE.md and docs/HOSTS.md state, written out
 * here rather than taken from src/onboardings/machine/schedule.ts, so that a changed figure fails a test
 * (an owed write's retries are pinned in index-sync.test.ts).
 */
import { describe, expect, it } from "vitest";
import { checkDelayMs } from "../../src/onboardings/machine/schedule";
import { eventRetryDelayMs, heldRecheckMs } from "../../src/webhooks/delivery-policy";

const SECOND = 1000;
const MINUTE = 60_000;
const HOUR = 3_600_000;

describe("how often the chain is read while an onboarding waits", () => {
  it("keeps ONBOARDING_CHECK_SECONDS for the whole 30 minutes after a change, however short it is", () => {
    for (const base of [1000, 2000, 6000]) {
      for (const since of [0, 10 * MINUTE, 20 * MINUTE, 30 * MINUTE])
        expect(checkDelayMs(since, base), `${base} ms, ${since / MINUTE} min`).toBe(base);
      expect(checkDelayMs(31 * MINUTE, base)).toBeGreaterThan(base);
    }
  });

  it("then waits 1/300 of the time since the change: 12 s after an hour, 1 minute after five", () => {
    expect(checkDelayMs(HOUR, 1000)).toBe(12 * SECOND);
    expect(checkDelayMs(5 * HOUR, 1000)).toBe(MINUTE);
  });

  it("never waits more than 5 minutes between two reads", () => {
    expect(checkDelayMs(25 * HOUR, 1000)).toBe(5 * MINUTE);
    expect(checkDelayMs(24 * HOUR, 1000)).toBeLessThan(5 * MINUTE);
    expect(checkDelayMs(2 * 24 * 60 * MINUTE, 1000)).toBe(5 * MINUTE);
    expect(checkDelayMs(7 * 24 * 60 * MINUTE, 6000)).toBe(5 * MINUTE);
  });

  it("reads every 10 minutes, a safety net, while the chain follower is following", () => {
    for (const since of [0, 31 * MINUTE, 7 * 24 * HOUR]) expect(checkDelayMs(since, 6000, true)).toBe(10 * MINUTE);
  });
});

describe("when an event is tried again", () => {
  it("refused by the receiver alone: 5 s, 5 min, 30 min, 2 h, 5 h, then every 10 h", () => {
    const schedule = [1, 2, 3, 4, 5, 6, 7, 50].map(eventRetryDelayMs);
    expect(schedule).toEqual([
      5 * SECOND,
      5 * MINUTE,
      30 * MINUTE,
      2 * HOUR,
      5 * HOUR,
      10 * HOUR,
      10 * HOUR,
      10 * HOUR,
    ]);
  });

  it("held for its lane: asks again after 5 minutes, then 1/12 of its wait (1 h after 12 h), at most 6 h", () => {
    expect(heldRecheckMs(0)).toBe(5 * MINUTE);
    expect(heldRecheckMs(HOUR)).toBe(5 * MINUTE);
    expect(heldRecheckMs(12 * HOUR)).toBe(HOUR);
    expect(heldRecheckMs(72 * HOUR)).toBe(6 * HOUR);
    expect(heldRecheckMs(71 * HOUR)).toBeLessThan(6 * HOUR);
    expect(heldRecheckMs(30 * 24 * HOUR)).toBe(6 * HOUR);
  });
});

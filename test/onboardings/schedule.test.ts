import { describe, expect, it } from "vitest";
import { checkDelayMs } from "../../src/onboardings/schedule";

const MINUTE = 60_000;

describe("how often the chain is read while an onboarding waits", () => {
  it("keeps ONBOARDING_CHECK_SECONDS for the whole 30 minutes after a change, however short it is", () => {
    for (const base of [1000, 2000, 6000]) {
      for (const since of [0, 10 * MINUTE, 20 * MINUTE, 30 * MINUTE])
        expect(checkDelayMs(since, base), `${base} ms, ${since / MINUTE} min`).toBe(base);
      expect(checkDelayMs(31 * MINUTE, base)).toBeGreaterThan(base);
    }
  });

  it("never waits more than 5 minutes between two reads", () => {
    expect(checkDelayMs(2 * 24 * 60 * MINUTE, 1000)).toBe(5 * MINUTE);
    expect(checkDelayMs(7 * 24 * 60 * MINUTE, 6000)).toBe(5 * MINUTE);
  });
});

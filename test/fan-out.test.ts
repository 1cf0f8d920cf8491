/**
 * The bounded fan-out (src/fan-out.ts) at the figure docs/ARCHITECTURE.md states: the lane's
 * releases, the follower's hints and the host's retry go out 50 at a time.
 */
import { describe, expect, it } from "vitest";
import { fanOut } from "../src/fan-out";

/** Calls fanOut over `count` items whose calls take a moment each; how many were in flight at most. */
async function mostInFlight(count: number): Promise<number> {
  let inFlight = 0;
  let most = 0;
  await fanOut(
    Array.from({ length: count }, (_, i) => i),
    async () => {
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 1));
      inFlight--;
    },
  );
  return most;
}

describe("the bounded fan-out", () => {
  it("sends 50 side by side at most, however many it tells", async () => {
    expect(await mostInFlight(50)).toBe(50);
    expect(await mostInFlight(51)).toBe(50);
    expect(await mostInFlight(500)).toBe(50);
  });

  it("settles each call on its own and answers in the items' order", async () => {
    const results = await fanOut([1, 2, 3, 60, 61], async (n) => {
      if (n % 2 === 0) throw new Error(`no ${n}`);
      return n * 10;
    });
    expect(results.map((r) => (r.status === "fulfilled" ? r.value : (r.reason as Error).message))).toEqual([
      10,
      "no 2",
      30,
      "no 60",
      610,
    ]);
  });
});

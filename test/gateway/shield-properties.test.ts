/**
 * Property tests of the shield's logic under any sequence of asks, clock moves, upstream answers
 * and failures, with fast-check's scheduler choosing when each upstream round ends: a shield
 * answer is always one some upstream gave, at most one round is in flight, and with heights on
 * every answer the shield never goes back to a lower one.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { badGateway } from "../../src/errors";
import { etagOf, type CacheEntry } from "../../src/gateway/cache-entry";
import type { StaleWindows } from "../../src/gateway/freshness";
import { ShieldCore } from "../../src/gateway/shield/core";
import type { ShieldAsk, ShieldMode, ShieldOutcome } from "../../src/gateway/shield/protocol";
import type { UpstreamAnswer } from "../../src/gateway/upstreams";

const WINDOWS: StaleWindows = { cacheSwrSeconds: 60, cacheStaleIfErrorSeconds: 600 };

type Reply = { fails: true } | { fails: false; status: number; height: number | null };

const step = fc.record({
  advanceMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 8_000 }), fc.integer({ min: 0, max: 900_000 })),
  mode: fc.constantFrom<ShieldMode>("miss", "refresh"),
  /** Upstream rounds allowed to end after this ask. */
  release: fc.nat(2),
  /** Whether this ask's answer comes before the next ask is made (else they overlap). */
  awaited: fc.boolean(),
});

const reply = (height: fc.Arbitrary<number | null>): fc.Arbitrary<Reply> =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({ fails: fc.constant(false as const), status: fc.constantFrom(200, 200, 404), height }),
    },
    { weight: 1, arbitrary: fc.constant({ fails: true as const }) },
  );

/** Runs `steps` against a shield whose upstream answers with `replies` in turn; returns what it saw. */
async function run(
  s: fc.Scheduler,
  steps: { advanceMs: number; mode: ShieldMode; release: number; awaited: boolean }[],
  replies: Reply[],
) {
  let clock = 1_800_000_000_000;
  let calls = 0;
  let inflight = 0;
  let maxInflight = 0;
  const given: UpstreamAnswer[] = [];
  const saved: CacheEntry[] = [];
  const background: Promise<unknown>[] = [];
  const core = new ShieldCore(
    null,
    {
      upstream: async () => {
        const call = calls++;
        maxInflight = Math.max(maxInflight, ++inflight);
        const r = await s.schedule(Promise.resolve(replies[call % replies.length]!), `upstream #${call}`);
        inflight--;
        if (r.fails) throw badGateway("UPSTREAM_UNAVAILABLE", "every upstream failed");
        const answer = { status: r.status, body: JSON.stringify({ call }), height: r.height };
        given.push(answer);
        return answer;
      },
      save: async (entry) => {
        saved.push(entry);
      },
      background: (work) => background.push(work),
      now: () => clock,
    },
    WINDOWS,
  );
  const served: ShieldOutcome[] = [];
  const outcomes: Promise<unknown>[] = [];
  for (const { advanceMs, mode, release, awaited } of steps) {
    clock += advanceMs;
    const ask: ShieldAsk = {
      query: { upstreamPath: "/cosmos/bank/v1beta1/supply", height: null },
      ttls: { success: 5, error: 5 },
      mode,
    };
    const outcome = core.outcome(ask).then((o) => served.push(o));
    outcomes.push(outcome);
    if (awaited) await s.waitFor(outcome);
    else for (let i = 0; i < release && s.count() > 0; i++) await s.waitNext(1);
  }
  await s.waitFor(Promise.all(outcomes));
  await s.waitIdle();
  await Promise.all(background);
  return { given, saved, served, maxInflight, calls };
}

describe("the shield under any schedule", () => {
  it("only ever serves an answer some upstream gave, and runs one upstream round at a time", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(step, { minLength: 1, maxLength: 25 }),
        fc.array(reply(fc.option(fc.nat(1_000), { nil: null })), { minLength: 1, maxLength: 8 }),
        async (s, steps, replies) => {
          const { given, served, maxInflight } = await run(s, steps, replies);
          expect(maxInflight).toBeLessThanOrEqual(1);
          for (const outcome of served) {
            if (!outcome.ok) continue;
            const { status, body, height, etag } = outcome.entry;
            expect(given).toContainEqual(expect.objectContaining({ status, body, height }));
            expect(etag).toBe(await etagOf(status, body));
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it("never goes back to a lower height when every answer carries one", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(step, { minLength: 1, maxLength: 25 }),
        fc.array(reply(fc.nat(1_000)), { minLength: 1, maxLength: 8 }),
        async (s, steps, replies) => {
          const { saved, served } = await run(s, steps, replies);
          const heights = (list: (CacheEntry | undefined)[]) =>
            list.flatMap((e) => (e?.height == null ? [] : [e.height]));
          const nonDecreasing = (values: number[]) => values.every((v, i) => i === 0 || v >= values[i - 1]!);
          expect(nonDecreasing(heights(saved))).toBe(true);
          expect(nonDecreasing(heights(served.map((o) => (o.ok ? o.entry : undefined))))).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  });
});

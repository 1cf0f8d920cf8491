/**
 * The live feed's every-height rule, on the stored sequencer (docs/GATEWAY.md, "Every height, in
 * order, once"): a jump of up to 100 heights is backfilled oldest first; a jump past 100, or a
 * missed height that cannot be read after three tries, cancels the subscriptions (the shards then
 * send CometBFT's `subscription was canceled` error) and delivery goes on from the new height; a
 * lagging node's heights at or below the last one sent are dropped. The last height is kept in the
 * object's storage: a sequencer started again on it (the feed after a restart) backfills from it,
 * and one that went idle starts from the node's height. Real Durable Object storage.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import type { LiveFeed } from "../../durable-objects/live/LiveFeed";
import type { NewBlockValue } from "../../src/gateway/live/block-events";
import { HeightSequencer } from "../../src/gateway/live/height-sequencer";

/** The most heights backfilled after a jump (docs/GATEWAY.md). */
const MAX_BACKFILL = 100;
/** How long one read of a missed height may take before it counts as failed (docs/GATEWAY.md). */
const BACKFILL_READ_MS = 15_000;
/** Tries of a missed height before the subscriptions are cancelled (docs/GATEWAY.md). */
const BACKFILL_TRIES = 3;

const feeds = (env as unknown as { LIVE_FEEDS: DurableObjectNamespace<LiveFeed> }).LIVE_FEEDS;

const blockAt = (height: number): NewBlockValue => ({
  block: { header: { height: String(height), chain_id: "devnet" }, data: { txs: [] } },
  block_id: { hash: "" },
  result_finalize_block: { events: [], tx_results: [] },
});

/** Runs `body` with the storage of a Durable Object of its own (an idle feed's, which dials nothing). */
const withStorage = <T>(body: (storage: DurableObjectStorage) => Promise<T>) =>
  runInDurableObject(feeds.get(feeds.idFromName(`seq-${crypto.randomUUID()}`)), (_feed, state) => body(state.storage));

/** A sequencer on `storage` (a new one stands for the feed started again), recording what it does. */
async function sequencer(
  storage: DurableObjectStorage,
  unreadable = new Set<number>(),
  unanswered = new Set<number>(),
) {
  const published: number[] = [];
  const cancelled: string[] = [];
  const backfilled: number[] = [];
  const seq = new HeightSequencer(storage, {
    backfill: async (height) => {
      backfilled.push(height);
      if (unreadable.has(height)) throw new Error(`block ${height}: no node answered`);
      if (unanswered.has(height)) return new Promise<never>(() => undefined);
      return blockAt(height);
    },
    publish: (batch) => published.push(batch.height),
    cancel: (reason) => cancelled.push(reason),
    pause: async () => undefined,
  });
  await seq.restore();
  return { seq, published, cancelled, backfilled };
}

describe("the live feed's heights", () => {
  it(`backfills a jump of ${MAX_BACKFILL} heights oldest first, and cancels nothing`, () =>
    withStorage(async (storage) => {
      const { seq, published, cancelled, backfilled } = await sequencer(storage);
      await seq.take(blockAt(10));
      await seq.take(blockAt(10 + MAX_BACKFILL + 1));
      expect(backfilled).toEqual(Array.from({ length: MAX_BACKFILL }, (_, i) => 11 + i));
      expect(published).toEqual(Array.from({ length: MAX_BACKFILL + 2 }, (_, i) => 10 + i));
      expect(cancelled).toEqual([]);
    }));

  it(`cancels the subscriptions past a gap of ${MAX_BACKFILL} heights, reads none of them, and goes on`, () =>
    withStorage(async (storage) => {
      const { seq, published, cancelled, backfilled } = await sequencer(storage);
      await seq.take(blockAt(10));
      await seq.take(blockAt(10 + MAX_BACKFILL + 2));
      expect(cancelled).toEqual([`${MAX_BACKFILL + 1} heights missed, more than the ${MAX_BACKFILL} backfilled`]);
      expect(backfilled).toEqual([]);
      expect(published).toEqual([10, 10 + MAX_BACKFILL + 2]);
      expect(seq.last).toBe(10 + MAX_BACKFILL + 2);
    }));

  it(`cancels when a missed height cannot be read after ${BACKFILL_TRIES} tries, never skips it`, () =>
    withStorage(async (storage) => {
      const { seq, published, cancelled, backfilled } = await sequencer(storage, new Set([12]));
      await seq.take(blockAt(10));
      await seq.take(blockAt(15));
      expect(backfilled).toEqual([11, ...Array<number>(BACKFILL_TRIES).fill(12)]);
      // 11 went out; 12 could not be read: the subscribers are told, and the new height goes on from there.
      expect(published).toEqual([10, 11, 15]);
      expect(cancelled).toEqual(["height 12 could not be read"]);
    }));

  it("drops a lagging node's heights already sent, after a failover, and resumes past the last one", () =>
    withStorage(async (storage) => {
      const { seq, published, cancelled } = await sequencer(storage);
      for (const height of [20, 21, 22]) await seq.take(blockAt(height));
      const newAt = seq.lastPublishedAt;
      // The second node trails by two heights: 20, 21 and 22 went out already, and are not new again.
      for (const height of [20, 21, 22]) await seq.take(blockAt(height));
      expect(seq.lastPublishedAt).toBe(newAt);
      await seq.take(blockAt(23));
      expect(published).toEqual([20, 21, 22, 23]);
      expect(cancelled).toEqual([]);
    }));

  it("after a restart, backfills from the stored height: nothing skipped, nothing sent twice", () =>
    withStorage(async (storage) => {
      const before = await sequencer(storage);
      for (const height of [30, 31]) await before.seq.take(blockAt(height));
      // The feed starts again (eviction, deploy, crash) on the same storage; the node has moved on.
      const after = await sequencer(storage);
      expect(after.seq.last).toBe(31);
      await after.seq.take(blockAt(31));
      await after.seq.take(blockAt(35));
      expect(after.backfilled).toEqual([32, 33, 34]);
      expect(after.published).toEqual([32, 33, 34, 35]);
      expect(after.cancelled).toEqual([]);
    }));

  it("after a restart past a gap of more than 100 stored heights, cancels rather than skip", () =>
    withStorage(async (storage) => {
      await (await sequencer(storage)).seq.take(blockAt(40));
      const after = await sequencer(storage);
      await after.seq.take(blockAt(40 + MAX_BACKFILL + 2));
      expect(after.cancelled).toEqual([`${MAX_BACKFILL + 1} heights missed, more than the ${MAX_BACKFILL} backfilled`]);
      expect(after.published).toEqual([40 + MAX_BACKFILL + 2]);
    }));

  it("once idle, forgets the stored height: a later first subscriber starts from the node's", () =>
    withStorage(async (storage) => {
      const before = await sequencer(storage);
      await before.seq.take(blockAt(50));
      await before.seq.forget();
      const after = await sequencer(storage);
      expect(after.seq.last).toBeNull();
      await after.seq.take(blockAt(80));
      expect(after.backfilled).toEqual([]);
      expect(after.published).toEqual([80]);
      expect(after.cancelled).toEqual([]);
    }));

  it(`counts a read that never answers as failed after ${BACKFILL_READ_MS / 1000} s: three of them cancel`, () =>
    withStorage(async (storage) => {
      vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
      try {
        const { seq, published, cancelled, backfilled } = await sequencer(storage, new Set(), new Set([12]));
        await seq.take(blockAt(10));
        const taken = seq.take(blockAt(14));
        const reads = () => backfilled.filter((h) => h === 12).length;
        // (vi.waitFor would move the faked clock itself.)
        await vi.advanceTimersByTimeAsync(0);
        expect(reads()).toBe(1);
        // Not failed a millisecond before its time: no second read yet.
        await vi.advanceTimersByTimeAsync(BACKFILL_READ_MS - 1);
        expect(reads()).toBe(1);
        await vi.advanceTimersByTimeAsync(1);
        expect(reads()).toBe(2);
        await vi.advanceTimersByTimeAsync(BACKFILL_READ_MS);
        expect(reads()).toBe(BACKFILL_TRIES);
        await vi.advanceTimersByTimeAsync(BACKFILL_READ_MS);
        await taken;
        expect(cancelled).toEqual(["height 12 could not be read"]);
        expect(published).toEqual([10, 11, 14]);
      } finally {
        vi.useRealTimers();
      }
    }));
});

/**
 * The live feed's every-height rule, on the sequencer alone (docs/GATEWAY.md, "Every height, in
 * order, once"): a jump of up to 100 heights is backfilled oldest first; a jump past 100 cancels the
 * subscriptions (the shards then send CometBFT's `subscription was canceled` error) and delivery goes
 * on from the new height; a lagging node's heights at or below the last one sent are dropped.
 */
import { describe, expect, it } from "vitest";
import type { NewBlockValue } from "../../src/gateway/live/block-events";
import { HeightSequencer } from "../../src/gateway/live/height-sequencer";

/** The most heights backfilled after a jump (docs/GATEWAY.md). */
const MAX_BACKFILL = 100;

const blockAt = (height: number): NewBlockValue => ({
  block: { header: { height: String(height), chain_id: "devnet" }, data: { txs: [] } },
  block_id: { hash: "" },
  result_finalize_block: { events: [], tx_results: [] },
});

function sequencer() {
  const published: number[] = [];
  const cancelled: string[] = [];
  const backfilled: number[] = [];
  const seq = new HeightSequencer({
    backfill: async (height) => {
      backfilled.push(height);
      return blockAt(height);
    },
    publish: (batch) => published.push(batch.height),
    cancel: (reason) => cancelled.push(reason),
    pause: async () => undefined,
  });
  return { seq, published, cancelled, backfilled };
}

describe("the live feed's heights", () => {
  it(`backfills a jump of ${MAX_BACKFILL} heights oldest first, and cancels nothing`, async () => {
    const { seq, published, cancelled, backfilled } = sequencer();
    await seq.take(blockAt(10));
    await seq.take(blockAt(10 + MAX_BACKFILL + 1));
    expect(backfilled).toEqual(Array.from({ length: MAX_BACKFILL }, (_, i) => 11 + i));
    expect(published).toEqual(Array.from({ length: MAX_BACKFILL + 2 }, (_, i) => 10 + i));
    expect(cancelled).toEqual([]);
  });

  it(`cancels the subscriptions past a gap of ${MAX_BACKFILL} heights, reads none of them, and goes on`, async () => {
    const { seq, published, cancelled, backfilled } = sequencer();
    await seq.take(blockAt(10));
    await seq.take(blockAt(10 + MAX_BACKFILL + 2));
    expect(cancelled).toEqual([`${MAX_BACKFILL + 1} heights missed, more than the ${MAX_BACKFILL} backfilled`]);
    expect(backfilled).toEqual([]);
    expect(published).toEqual([10, 10 + MAX_BACKFILL + 2]);
    expect(seq.last).toBe(10 + MAX_BACKFILL + 2);
  });

  it("drops a lagging node's heights already sent, after a failover, and resumes past the last one", async () => {
    const { seq, published, cancelled } = sequencer();
    for (const height of [20, 21, 22]) await seq.take(blockAt(height));
    // The second node trails by two heights: 20, 21 and 22 went out already.
    for (const height of [20, 21, 22, 23]) await seq.take(blockAt(height));
    expect(published).toEqual([20, 21, 22, 23]);
    expect(cancelled).toEqual([]);
  });
});

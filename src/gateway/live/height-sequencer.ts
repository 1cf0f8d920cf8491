/**
 * Every height, in order, once: the upstream's `NewBlock`s numbered by height. A height at or
 * below the last one published is dropped (a lagging node after a failover, a repeat); a jump
 * is filled with the missed heights read through the cache (`block` and `block_results`),
 * oldest first, before the new one goes out; a jump of more than MAX_BACKFILL_HEIGHTS is not
 * filled: the subscriptions are cancelled with CometBFT's error and delivery goes on from the new
 * height. A height that cannot be read after a few tries cancels them too, rather than leave a gap.
 */
import { eventsOfBlock, type HeightEvents, type NewBlockValue } from "./block-events";
import { MAX_BACKFILL_HEIGHTS } from "./limits";

/** What the sequencer needs: a missed height's NewBlock, and where heights and cancellations go. */
export interface SequencerLinks {
  backfill(height: number): Promise<NewBlockValue>;
  publish(batch: HeightEvents): void;
  cancel(reason: string): void;
  /** Waits before a failed backfill is tried again. */
  pause(ms: number): Promise<void>;
}

const BACKFILL_TRIES = 3;

export class HeightSequencer {
  /** The last height published; null before the first (or after the feed went idle). */
  last: number | null = null;
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly links: SequencerLinks) {}

  /** Takes a NewBlock from the upstream; the returned promise settles once it (and any backfill) is published. */
  take(value: NewBlockValue): Promise<void> {
    this.queue = this.queue.then(() => this.next(value)).catch(() => undefined);
    return this.queue;
  }

  private async next(value: NewBlockValue): Promise<void> {
    const height = Number(value.block.header.height);
    if (!Number.isSafeInteger(height) || height < 1) return;
    const last = this.last;
    if (last !== null && height <= last) return;
    if (last !== null && height - last - 1 > MAX_BACKFILL_HEIGHTS)
      this.links.cancel(`${height - last - 1} heights missed, more than the ${MAX_BACKFILL_HEIGHTS} backfilled`);
    else if (last !== null)
      for (let missed = last + 1; missed < height; missed++) {
        const block = await this.read(missed);
        if (!block) {
          this.links.cancel(`height ${missed} could not be read`);
          break;
        }
        this.links.publish(await eventsOfBlock(block));
        this.last = missed;
      }
    this.links.publish(await eventsOfBlock(value));
    this.last = height;
  }

  private async read(height: number): Promise<NewBlockValue | null> {
    for (let attempt = 1; attempt <= BACKFILL_TRIES; attempt++) {
      try {
        return await this.links.backfill(height);
      } catch {
        if (attempt < BACKFILL_TRIES) await this.links.pause(300 * attempt);
      }
    }
    return null;
  }
}

/**
 * Every height, in order, once: the upstream's `NewBlock`s numbered by height, the last one
 * published kept in storage (one write per height), so that after the feed restarts the next
 * height is backfilled from the stored one. A height at or below the last one published is
 * dropped (a lagging node after a failover, a repeat); a jump is filled with the missed heights
 * read through the cache (`block` and `block_results`), oldest first, before the new one goes
 * out; a jump of more than MAX_BACKFILL_HEIGHTS is not filled, and a missed height that cannot be
 * read after BACKFILL_TRIES tries is not skipped: either way the subscriptions are cancelled with
 * CometBFT's error and delivery goes on from the new height.
 */
import { eventsOfBlock, type HeightEvents, type NewBlockValue } from "./block-events";
import { BACKFILL_READ_MS, MAX_BACKFILL_HEIGHTS } from "./limits";

/** What the sequencer needs: a missed height's NewBlock, and where heights and cancellations go. */
export interface SequencerLinks {
  backfill(height: number): Promise<NewBlockValue>;
  publish(batch: HeightEvents): void;
  cancel(reason: string): void;
  /** Waits before a failed backfill is tried again. */
  pause(ms: number): Promise<void>;
}

/** Where the sequencer keeps its height: a Durable Object's storage. */
export type HeightStorage = Pick<DurableObjectStorage, "get" | "put" | "delete">;

const BACKFILL_TRIES = 3;
/** The storage key of the last height published. */
const HEIGHT_KEY = "height";

export class HeightSequencer {
  private lastHeight: number | null = null;
  private lastNewAt = 0;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly storage: HeightStorage,
    private readonly links: SequencerLinks,
  ) {}

  /** Reads the stored height (after a restart, the next height is backfilled from it). */
  async restore(): Promise<void> {
    this.lastHeight = (await this.storage.get<number>(HEIGHT_KEY)) ?? null;
  }

  /** The last height published; null before the first (or after the feed went idle). */
  get last(): number | null {
    return this.lastHeight;
  }

  /** When the last height was published, as it was new (epoch ms; 0 before any). */
  get lastPublishedAt(): number {
    return this.lastNewAt;
  }

  /** Takes a NewBlock from the upstream; the returned promise settles once it (and any backfill) is published. */
  take(value: NewBlockValue): Promise<void> {
    return this.enqueue(() => this.next(value));
  }

  /** Nobody is owed a next height (the feed went idle): a later first subscriber starts from the node's. */
  forget(): Promise<void> {
    return this.enqueue(async () => {
      this.lastHeight = null;
      await this.storage.delete(HEIGHT_KEY);
    });
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(step).catch(() => undefined);
    return this.queue;
  }

  private async next(value: NewBlockValue): Promise<void> {
    const height = Number(value.block.header.height);
    if (!Number.isSafeInteger(height) || height < 1) return;
    const last = this.lastHeight;
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
        await this.publish(await eventsOfBlock(block));
      }
    await this.publish(await eventsOfBlock(value));
  }

  /** Publishes, then stores: a restart between the two sends the height again, which the shards drop, never a gap. */
  private async publish(batch: HeightEvents): Promise<void> {
    this.links.publish(batch);
    this.lastHeight = batch.height;
    this.lastNewAt = Date.now();
    await this.storage.put(HEIGHT_KEY, batch.height);
  }

  private async read(height: number): Promise<NewBlockValue | null> {
    for (let attempt = 1; attempt <= BACKFILL_TRIES; attempt++) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      // A read that never settles would hold every later height behind it: past its time it counts as failed.
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer in ${BACKFILL_READ_MS} ms`)), BACKFILL_READ_MS);
      });
      try {
        return await Promise.race([this.links.backfill(height), late]);
      } catch {
        if (attempt < BACKFILL_TRIES) await this.links.pause(300 * attempt);
      } finally {
        clearTimeout(timer);
      }
    }
    return null;
  }
}

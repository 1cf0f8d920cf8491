/**
 * The live feed's registry: the shards joined and the chain followers listening, stored so a
 * restarted feed still serves them, and each shard's deliveries in order. A height a shard does
 * not take (its call throws) is tried again, DELIVERY_TRIES times in all, before the later heights
 * for that shard go on; past the tries that shard's subscriptions are cancelled (and a shard the
 * cancel does not reach sees the gap at its next height and cancels them itself), so a shard's
 * subscribers get every height or a cancel. One shard never waits on another.
 */
import type { HeightEvents } from "./block-events";
import { DELIVERY_TRIES } from "./limits";

/** The calls the feed makes of a shard and of a follower (their Durable Objects' methods). */
export interface FeedPeers {
  deliver(shard: string, batch: HeightEvents): Promise<boolean>;
  cancelAll(shard: string, reason: string): Promise<void>;
  heightPushed(follower: string, height: number, seenAt: number): Promise<void>;
  feedLost(follower: string): Promise<void>;
  /** Waits before a delivery is tried again. */
  pause(ms: number): Promise<void>;
}

/** Where the registry keeps its members. */
export interface RegistryStore {
  put(entries: Record<string, unknown>): void;
}

/** The pause before a failed delivery's next try, times the try's number. */
const RETRY_MS = 250;

export class FeedRegistry {
  private readonly deliveries = new Map<string, Promise<unknown>>();
  /** Each shard's latest join, numbered: a shard that joins again while told it holds nobody stays joined. */
  private readonly joins = new Map<string, number>();
  private joinCount = 0;

  constructor(
    private readonly peers: FeedPeers,
    private readonly store: RegistryStore,
    private readonly shards: Set<string>,
    private readonly followers: Set<string>,
  ) {}

  /** Nobody listens: no shard holds a subscriber and no follower has onboardings waiting. */
  idle(): boolean {
    return this.shards.size === 0 && this.followers.size === 0;
  }

  counts(): { shards: number; followers: number } {
    return { shards: this.shards.size, followers: this.followers.size };
  }

  /** Joins a shard (again: joining is idempotent). */
  join(shard: string): void {
    this.joins.set(shard, ++this.joinCount);
    if (this.shards.has(shard)) return;
    this.shards.add(shard);
    this.store.put({ shards: [...this.shards] });
  }

  leave(shard: string): void {
    if (!this.shards.delete(shard)) return;
    this.store.put({ shards: [...this.shards] });
  }

  /** A follower starts or stops listening; false when nothing changed. */
  follow(follower: string, listening: boolean): boolean {
    if (listening === this.followers.has(follower)) return false;
    if (listening) this.followers.add(follower);
    else this.followers.delete(follower);
    this.store.put({ followers: [...this.followers] });
    return true;
  }

  /** One height to every joined shard, in order per shard; a shard that answers it holds nobody is forgotten. */
  publish(batch: HeightEvents): void {
    for (const shard of this.shards)
      this.enqueue(shard, async () => {
        const joined = this.joins.get(shard);
        const held = await this.delivered(shard, batch);
        if (held === false && this.joins.get(shard) === joined) this.leave(shard);
      });
  }

  /** Cancels every shard's subscriptions (a gap too long to backfill), after what each is owed already. */
  cancelAll(reason: string): void {
    for (const shard of this.shards) this.enqueue(shard, () => this.peers.cancelAll(shard, reason));
  }

  /** Tells each listening follower a height and when it was new: its age, not the telling, says if it is the head. */
  tellFollowers(height: number, seenAt: number): void {
    for (const id of this.followers) void this.peers.heightPushed(id, height, seenAt).catch(() => undefined);
  }

  /** Tells each listening follower the socket is gone, so it reads the head until heights come again. */
  followersLost(): void {
    for (const id of this.followers) void this.peers.feedLost(id).catch(() => undefined);
  }

  /** Resolves once every delivery queued so far has been made or given up (for tests and the idle close). */
  async settled(): Promise<void> {
    await Promise.all(this.deliveries.values());
  }

  private enqueue(shard: string, send: () => Promise<unknown>): void {
    const previous = this.deliveries.get(shard) ?? Promise.resolve();
    const next = previous.then(send).catch(() => undefined);
    this.deliveries.set(shard, next);
    void next.then(() => {
      if (this.deliveries.get(shard) === next) this.deliveries.delete(shard);
    });
  }

  /** Delivers with retries; past them cancels the shard's subscriptions. Null when given up. */
  private async delivered(shard: string, batch: HeightEvents): Promise<boolean | null> {
    for (let attempt = 1; attempt <= DELIVERY_TRIES; attempt++) {
      try {
        return await this.peers.deliver(shard, batch);
      } catch {
        if (attempt < DELIVERY_TRIES) await this.peers.pause(RETRY_MS * attempt);
      }
    }
    await this.peers
      .cancelAll(shard, `height ${batch.height} could not be delivered after ${DELIVERY_TRIES} tries`)
      .catch(() => undefined);
    return null;
  }
}

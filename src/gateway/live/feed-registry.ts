/**
 * The feed's registry: which shards are joined and which chain followers listen (both stored), and
 * each shard's delivery queue. A shard gets the heights in order; a delivery it rejects is tried
 * again (DELIVERY_TRIES tries, backing off) while later heights wait behind it, for that shard
 * only; after the last try its subscriptions are cancelled with the reason and it is forgotten. A
 * shard that answers that it holds nobody is forgotten too.
 */
import type { HeightEvents } from "./block-events";
import { log } from "../../log";

/** What the registry needs of a shard (LiveShard's RPC). */
export interface ShardLink {
  deliver(batch: HeightEvents): boolean | Promise<boolean>;
  cancelAll(reason: string): unknown;
}

/** What the registry needs of a follower (ChainFollower's RPC). */
interface FollowerLink {
  heightPushed(height: number, newAt: number): Promise<unknown>;
  feedLost(): Promise<unknown>;
}

export interface RegistryLinks {
  shard(name: string): ShardLink;
  follower(id: string): FollowerLink;
  /** Waits before a rejected delivery is tried again. */
  pause(ms: number): Promise<void>;
}

/** Tries of one delivery to one shard; the pause before try n + 1 is DELIVERY_BACKOFF_MS × 2^(n−1). */
const DELIVERY_TRIES = 4;
const DELIVERY_BACKOFF_MS = 250;

export class FeedRegistry {
  private shards = new Set<string>();
  private followers = new Set<string>();
  private origin: string | null = null;
  /** Each shard's deliveries, chained (at most LIVE_SHARDS entries). */
  private readonly queues = new Map<string, Promise<void>>();

  constructor(
    private readonly storage: Pick<DurableObjectStorage, "get" | "put">,
    private readonly links: RegistryLinks,
  ) {}

  async restore(): Promise<void> {
    this.shards = new Set((await this.storage.get<string[]>("shards")) ?? []);
    this.followers = new Set((await this.storage.get<string[]>("followers")) ?? []);
    this.origin = (await this.storage.get<string>("origin")) ?? null;
  }

  /** Where reads are keyed in the cache: the origin a shard named, if any. */
  get readOrigin(): string | null {
    return this.origin;
  }

  counts(): { shards: number; followers: number } {
    return { shards: this.shards.size, followers: this.followers.size };
  }

  /** Nobody listens: no shard holds a subscriber and no follower has onboardings waiting. */
  idle(): boolean {
    return this.shards.size === 0 && this.followers.size === 0;
  }

  async join(shard: string, origin?: string): Promise<void> {
    if (this.shards.has(shard) && (!origin || origin === this.origin)) return;
    this.shards.add(shard);
    if (origin) this.origin = origin;
    await this.storage.put({ shards: [...this.shards], ...(this.origin ? { origin: this.origin } : {}) });
  }

  async leave(shard: string): Promise<void> {
    if (!this.shards.delete(shard)) return;
    await this.storage.put("shards", [...this.shards]);
  }

  /** Whether the follower's listening changed. */
  async follow(follower: string, listening: boolean): Promise<boolean> {
    if (listening === this.followers.has(follower)) return false;
    if (listening) this.followers.add(follower);
    else this.followers.delete(follower);
    await this.storage.put("followers", [...this.followers]);
    return true;
  }

  /** Queues a height for every joined shard. */
  deliver(batch: HeightEvents): void {
    this.toShards(`height ${batch.height}`, async (shard) => (await shard.deliver(batch)) !== false);
  }

  /** Queues CometBFT's cancel for every joined shard, in order with its heights. */
  cancel(reason: string): void {
    this.toShards("cancel", async (shard) => {
      await shard.cancelAll(reason);
      return true;
    });
  }

  /**
   * Tells each listening follower the last new height and when it was new, or (no height) that the socket is gone,
   * so it reads the head until heights come again; one not reached reads the head itself.
   */
  toFollowers(height?: number, newAt = 0): void {
    for (const id of this.followers) {
      const follower = this.links.follower(id);
      void (height === undefined ? follower.feedLost() : follower.heightPushed(height, newAt)).catch(() => undefined);
    }
  }

  /** Queues `send` behind what each shard already has queued; `send` answers whether the shard still holds anyone. */
  private toShards(what: string, send: (shard: ShardLink) => Promise<boolean>): void {
    for (const name of this.shards) {
      const previous = this.queues.get(name) ?? Promise.resolve();
      this.queues.set(
        name,
        previous.then(async () => {
          // A shard forgotten meanwhile is sent nothing more (one that joins again drops heights it is past).
          if (this.shards.has(name) && !(await this.tries(name, what, send))) await this.leave(name);
        }),
      );
    }
  }

  /** `send` to the shard until it takes it; after DELIVERY_TRIES rejections, its subscriptions are cancelled. */
  private async tries(name: string, what: string, send: (shard: ShardLink) => Promise<boolean>): Promise<boolean> {
    let error: unknown;
    for (let attempt = 1; attempt <= DELIVERY_TRIES; attempt++) {
      try {
        return await send(this.links.shard(name));
      } catch (err) {
        error = err;
        if (attempt < DELIVERY_TRIES) await this.links.pause(DELIVERY_BACKOFF_MS * 2 ** (attempt - 1));
      }
    }
    const reason = `the edge could not deliver ${what} after ${DELIVERY_TRIES} tries`;
    log("warn", "live_delivery_failed", { shard: name, what, error: String(error) });
    try {
      await this.links.shard(name).cancelAll(reason);
    } catch {
      // The shard cannot be reached at all: it cancels its subscriptions itself on the gap it sees next.
    }
    return false;
  }
}

/**
 * LiveFeed: the root of a network's live face (`idFromName(chain id)`). Its dialler
 * (src/gateway/live/feed-dialler.ts) holds the network's one upstream socket, opened when the first
 * shard with a subscriber joins or a follower starts listening, and closed IDLE_CLOSE_MS after the
 * last one leaves (an alarm). Its sequencer (height-sequencer.ts) numbers the node's NewBlocks by
 * height, stores the last one published and backfills missed heights through the cache, also after a
 * restart; its registry (feed-registry.ts) pushes each height's events to every joined LiveShard, in
 * order per shard, retrying or cancelling, one shard never waiting on another, and tells the listening
 * ChainFollowers each height.
 *
 * The alarm, every WATCH_MS while anyone listens, is the watchdog: a silent socket is dialled again, a
 * lagging one (or one off the first node) looks for a better node, and the followers are told the last
 * height with the time it was new, so a height that stopped moving is never taken for the head.
 */
import { DurableObject } from "cloudflare:workers";
import { type Config, readConfig } from "../../src/config";
import { newBlockOf } from "../../src/gateway/live/block-events";
import { cachedResult } from "../../src/gateway/live/cached-read";
import { FeedDialler } from "../../src/gateway/live/feed-dialler";
import { FeedRegistry } from "../../src/gateway/live/feed-registry";
import { HeightSequencer } from "../../src/gateway/live/height-sequencer";
import { IDLE_CLOSE_MS } from "../../src/gateway/live/limits";

/** The watchdog's period while anyone listens. */
const WATCH_MS = 2_000;
/** Where the backfill's reads are keyed in the cache when no shard has named an origin. */
const INTERNAL_ORIGIN = "https://live.internal";
/** The stored last height published. */
const HEIGHT_KEY = "height";

export class LiveFeed extends DurableObject<Env> {
  private readonly config: Config;
  private origin = INTERNAL_ORIGIN;
  private registry!: FeedRegistry;
  private sequencer!: HeightSequencer;
  private readonly dialler: FeedDialler;
  /** When the last height published was new (0: none since this object started). */
  private lastNewAt = 0;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.config = readConfig(env);
    const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
    this.dialler = new FeedDialler(() => this.config, {
      block: (value) => void this.sequencer.take(value),
      lost: () => this.registry.followersLost(),
      wanted: () => !this.registry.idle(),
      lastHeight: () => this.sequencer.last,
    });
    ctx.blockConcurrencyWhile(async () => {
      const stored = await ctx.storage.get<unknown>(["shards", "followers", "origin", HEIGHT_KEY]);
      this.origin = (stored.get("origin") as string | undefined) ?? INTERNAL_ORIGIN;
      this.registry = new FeedRegistry(
        {
          deliver: (shard, batch) => this.shard(shard).deliver(batch),
          cancelAll: (shard, reason) => this.shard(shard).cancelAll(reason),
          heightPushed: (id, height, seenAt) => this.follower(id).heightPushed(height, seenAt),
          feedLost: (id) => this.follower(id).feedLost(),
          pause,
        },
        { put: (entries) => void ctx.storage.put(entries) },
        new Set((stored.get("shards") as string[] | undefined) ?? []),
        new Set((stored.get("followers") as string[] | undefined) ?? []),
      );
      this.sequencer = new HeightSequencer(
        {
          backfill: async (height) => {
            const read = (method: string) => cachedResult(this.env, this.ctx, this.origin, method, height);
            const [block, results] = await Promise.all([read("block"), read("block_results")]);
            return newBlockOf(block, results);
          },
          publish: (batch) => {
            this.lastNewAt = Date.now();
            this.dialler.heightPublished(this.lastNewAt);
            this.registry.publish(batch);
            this.registry.tellFollowers(batch.height, this.lastNewAt);
          },
          cancel: (reason) => this.registry.cancelAll(reason),
          pause,
          store: (height) =>
            void (height === null ? ctx.storage.delete(HEIGHT_KEY) : ctx.storage.put(HEIGHT_KEY, height)),
        },
        (stored.get(HEIGHT_KEY) as number | undefined) ?? null,
      );
    });
  }

  /** A shard's first subscriber (or any subscriber of a shard not known to be joined): idempotent. */
  async join(shard: string, origin?: string): Promise<void> {
    this.registry.join(shard);
    if (origin && origin !== this.origin) {
      this.origin = origin;
      await this.ctx.storage.put("origin", origin);
    }
    await this.watchIn(WATCH_MS);
    await this.dialler.dial();
  }

  /** A shard's last subscriber left: with none anywhere, the upstream closes within IDLE_CLOSE_MS. */
  async leave(shard: string): Promise<void> {
    this.registry.leave(shard);
    if (this.registry.idle()) await this.ctx.storage.setAlarm(Date.now() + IDLE_CLOSE_MS);
  }

  /**
   * A ChainFollower starts (`listening`) or stops listening for heights. Starting opens the upstream
   * without waiting for it: the follower reads the head until heights arrive. Stopping counts as a
   * subscriber leaving.
   */
  async follow(follower: string, listening: boolean): Promise<void> {
    if (!this.registry.follow(follower, listening)) return;
    await this.ctx.storage.setAlarm(Date.now() + (this.registry.idle() ? IDLE_CLOSE_MS : WATCH_MS));
    if (listening) void this.dialler.dial();
  }

  /** How the feed stands (for tests and operators): its shards, the node it reads and the last height sent. */
  state(): { shards: number; followers: number; upstream: string | null; height: number | null } {
    return { ...this.registry.counts(), upstream: this.dialler.url, height: this.sequencer.last };
  }

  override async alarm(): Promise<void> {
    if (this.registry.idle()) {
      this.dialler.close();
      // Nobody is owed a next height: a later first subscriber starts from the node's.
      this.sequencer.forget();
      return;
    }
    await this.watchIn(WATCH_MS);
    await this.dialler.check();
    // The followers' heartbeat: the last height with the time it was new, never as if it were new again.
    if (this.dialler.url && this.sequencer.last !== null && this.lastNewAt > 0)
      this.registry.tellFollowers(this.sequencer.last, this.lastNewAt);
  }

  private async watchIn(ms: number): Promise<void> {
    await this.ctx.storage.setAlarm(Date.now() + ms);
  }

  private shard(name: string) {
    return this.env.LIVE_SHARDS.get(this.env.LIVE_SHARDS.idFromName(name));
  }

  private follower(id: string) {
    return this.env.CHAIN_FOLLOWERS.get(this.env.CHAIN_FOLLOWERS.idFromString(id));
  }
}

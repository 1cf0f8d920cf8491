/**
 * LiveFeed: the root of a network's live face (`idFromName(chain id)`). It holds the network's
 * one upstream socket (src/gateway/live/upstream-socket.ts), opened when the first shard with a
 * subscriber joins and closed IDLE_CLOSE_MS after the last one leaves (an alarm), so an idle
 * network costs nothing. It numbers the node's NewBlocks by height, backfills missed heights
 * through the cache (height-sequencer.ts) and pushes each height's events to every joined
 * LiveShard, in order per shard, one shard never waiting on another. When the socket drops it
 * dials again, from the first node of RPC_UPSTREAM_URLS on, until one takes it; an alarm every
 * few seconds while subscribers remain is the watchdog (a dead or silent socket is dialled again).
 *
 * The network's ChainFollower listens too, but only while onboardings wait for the chain: it is told
 * each height in order (`heightPushed`) and counts as a subscriber for the idle rule only while it
 * listens, so it never holds the socket open by itself once no onboarding waits.
 */
import { DurableObject } from "cloudflare:workers";
import { type Config, readConfig } from "../../src/config";
import { type HeightEvents, newBlockOf } from "../../src/gateway/live/block-events";
import { cachedResult } from "../../src/gateway/live/cached-read";
import { HeightSequencer } from "../../src/gateway/live/height-sequencer";
import { IDLE_CLOSE_MS, UPSTREAM_SILENCE_MS } from "../../src/gateway/live/limits";
import { openUpstream, type Upstream } from "../../src/gateway/live/upstream-socket";

/** The watchdog's period while subscribers remain. */
// An alarm also keeps the object in memory: an object no request reaches is evicted within seconds, and its
// outbound socket with it (seen under wrangler dev, where the socket dropped every 5 s with a 5 s period).
const WATCH_MS = 2_000;
/** Pause before dialling again after a drop; doubled after each round every node refused, up to MAX_REDIAL_MS. */
const REDIAL_MS = 500;
const MAX_REDIAL_MS = 5_000;
/** Where the backfill's reads are keyed in the cache when no shard has named an origin. */
const INTERNAL_ORIGIN = "https://live.internal";

export class LiveFeed extends DurableObject<Env> {
  private readonly config: Config;
  private shards = new Set<string>();
  /** ChainFollower ids (`id.toString()`) listening while their onboardings wait. */
  private followers = new Set<string>();
  private origin = INTERNAL_ORIGIN;
  private upstream: Upstream | null = null;
  private dialling = false;
  private redialMs = REDIAL_MS;
  private lastFrameAt = 0;
  private readonly deliveries = new Map<string, Promise<unknown>>();
  private readonly sequencer: HeightSequencer;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.config = readConfig(env);
    this.sequencer = new HeightSequencer({
      backfill: async (height) => {
        const read = (method: string) => cachedResult(this.env, this.ctx, this.origin, method, height);
        const [block, results] = await Promise.all([read("block"), read("block_results")]);
        return newBlockOf(block, results);
      },
      publish: (batch) => {
        this.toShards((shard) => shard.deliver(batch), batch);
        this.toFollowers(batch.height);
      },
      cancel: (reason) => this.toShards((shard) => shard.cancelAll(reason)),
      pause: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    });
    ctx.blockConcurrencyWhile(async () => {
      this.shards = new Set((await ctx.storage.get<string[]>("shards")) ?? []);
      this.origin = (await ctx.storage.get<string>("origin")) ?? INTERNAL_ORIGIN;
      this.followers = new Set((await ctx.storage.get<string[]>("followers")) ?? []);
    });
  }

  /** A shard's first subscriber: the upstream opens if it is not open. */
  async join(shard: string, origin?: string): Promise<void> {
    this.shards.add(shard);
    if (origin) this.origin = origin;
    await this.ctx.storage.put({ shards: [...this.shards], origin: this.origin });
    await this.ctx.storage.setAlarm(Date.now() + WATCH_MS);
    await this.dial();
  }

  /** A shard's last subscriber left: with none anywhere, the upstream closes within IDLE_CLOSE_MS. */
  async leave(shard: string): Promise<void> {
    this.shards.delete(shard);
    await this.ctx.storage.put("shards", [...this.shards]);
    if (this.idle()) await this.ctx.storage.setAlarm(Date.now() + IDLE_CLOSE_MS);
  }

  /**
   * A ChainFollower starts (`listening`) or stops listening for heights. Starting opens the upstream
   * without waiting for it: the follower reads the head until heights arrive. Stopping counts as a
   * subscriber leaving.
   */
  async follow(follower: string, listening: boolean): Promise<void> {
    if (listening === this.followers.has(follower)) return;
    if (listening) this.followers.add(follower);
    else this.followers.delete(follower);
    await this.ctx.storage.put("followers", [...this.followers]);
    await this.ctx.storage.setAlarm(Date.now() + (this.idle() ? IDLE_CLOSE_MS : WATCH_MS));
    if (listening) void this.dial();
  }

  /** How the feed stands (for tests and operators): its shards, the node it reads and the last height sent. */
  state(): { shards: number; followers: number; upstream: string | null; height: number | null } {
    const { shards, followers, upstream, sequencer } = this;
    return { shards: shards.size, followers: followers.size, upstream: upstream?.url ?? null, height: sequencer.last };
  }

  override async alarm(): Promise<void> {
    if (this.idle()) {
      this.upstream?.close();
      this.upstream = null;
      // Nobody is owed a next height: a later first subscriber starts from the node's.
      this.sequencer.last = null;
      return;
    }
    if (this.upstream && Date.now() - this.lastFrameAt > UPSTREAM_SILENCE_MS) {
      this.upstream.close();
      this.upstream = null;
      this.toFollowersLost();
    }
    await this.ctx.storage.setAlarm(Date.now() + WATCH_MS);
    // The followers' heartbeat: the socket is up and heard from, so the last height still stands for the head.
    if (this.upstream && this.sequencer.last !== null) this.toFollowers(this.sequencer.last);
    await this.dial();
  }

  /** Opens the upstream unless it is open, being opened, or nobody listens; retries until a node takes it. */
  private async dial(): Promise<void> {
    if (this.upstream || this.dialling || this.idle()) return;
    this.dialling = true;
    try {
      this.upstream = await openUpstream(this.config, {
        block: (value) => void this.sequencer.take(value),
        frame: () => (this.lastFrameAt = Date.now()),
        closed: () => {
          this.upstream = null;
          this.toFollowersLost();
          setTimeout(() => void this.dial(), REDIAL_MS);
        },
      });
      this.lastFrameAt = Date.now();
    } catch {
      this.upstream = null;
    } finally {
      this.dialling = false;
    }
    if (this.upstream) this.redialMs = REDIAL_MS;
    else {
      setTimeout(() => void this.dial(), this.redialMs);
      this.redialMs = Math.min(this.redialMs * 2, MAX_REDIAL_MS);
    }
  }

  /** Nobody listens: no shard holds a subscriber and no follower has onboardings waiting. */
  private idle(): boolean {
    return this.shards.size === 0 && this.followers.size === 0;
  }

  /** Tells each listening follower the height; one that cannot be reached reads the head on its own. */
  private toFollowers(height: number): void {
    for (const id of this.followers)
      void this.follower(id)
        .heightPushed(height)
        .catch(() => undefined);
  }

  /** Tells each listening follower the socket is gone, so it reads the head until heights come again. */
  private toFollowersLost(): void {
    for (const id of this.followers)
      void this.follower(id)
        .feedLost()
        .catch(() => undefined);
  }

  private follower(id: string) {
    return this.env.CHAIN_FOLLOWERS.get(this.env.CHAIN_FOLLOWERS.idFromString(id));
  }

  /** Sends to every joined shard, in order per shard; a shard that holds nobody is forgotten. */
  private toShards(
    send: (shard: DurableObjectStub<import("./LiveShard").LiveShard>) => Promise<unknown>,
    batch?: HeightEvents,
  ) {
    for (const name of this.shards) {
      const previous = this.deliveries.get(name) ?? Promise.resolve();
      const push = () => send(this.env.LIVE_SHARDS.get(this.env.LIVE_SHARDS.idFromName(name)));
      const next = previous
        .then(push)
        .then((held) => {
          if (batch && held === false) void this.leave(name);
        })
        .catch(() => undefined);
      this.deliveries.set(name, next);
    }
  }
}

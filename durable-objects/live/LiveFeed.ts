/**
 * LiveFeed: the root of a network's live face (`idFromName(chain id)`), wiring its three parts:
 * the dialler (src/gateway/live/feed-dialler.ts: the one upstream socket and which node it is on),
 * the stored sequencer (height-sequencer.ts: every height, in order, once, across restarts) and the
 * registry (feed-registry.ts: the joined shards and listening followers, each shard's delivery
 * queue). The socket opens when the first shard with a subscriber joins (or a follower listens) and
 * closes IDLE_CLOSE_MS after the last one leaves, so an idle network costs nothing.
 *
 * The network's ChainFollower listens only while onboardings wait for the chain: it is told each
 * new height (`heightPushed`) and, on each watchdog round, the last one with the time it was new
 * (its heartbeat), so a follower never takes a height that stopped moving for the head.
 */
import { DurableObject } from "cloudflare:workers";
import { readConfig } from "../../src/config";
import { newBlockOf } from "../../src/gateway/live/block-events";
import { cachedResult } from "../../src/gateway/live/cached-read";
import { FeedDialler } from "../../src/gateway/live/feed-dialler";
import { FeedRegistry } from "../../src/gateway/live/feed-registry";
import { HeightSequencer } from "../../src/gateway/live/height-sequencer";
import { IDLE_CLOSE_MS } from "../../src/gateway/live/limits";

/**
 * The watchdog's period while anyone listens: it gives up a silent socket, leaves a lagging node, on a
 * node that is not the first asks the earlier ones whether they are ahead again (so a first node's
 * return is seen within about this long), and dials again after a restart. Not a keep-alive: under
 * `wrangler dev` the upstream socket ended every 4 s because of the upgrade fetch's abort signal
 * (close code 1006 at 3.8–4.0 s), not by eviction; with the signal gone and no alarm due for 300 s,
 * one connection held through 60 s of 50 steady subscribers.
 */
const WATCH_MS = 5_000;
/** Where the backfill's reads are keyed in the cache when no shard has named an origin. */
const INTERNAL_ORIGIN = "https://live.internal";

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class LiveFeed extends DurableObject<Env> {
  private readonly registry: FeedRegistry;
  private readonly sequencer: HeightSequencer;
  private readonly dialler: FeedDialler;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.registry = new FeedRegistry(ctx.storage, {
      shard: (name) => env.LIVE_SHARDS.get(env.LIVE_SHARDS.idFromName(name)),
      follower: (id) => env.CHAIN_FOLLOWERS.get(env.CHAIN_FOLLOWERS.idFromString(id)),
      pause,
    });
    this.sequencer = new HeightSequencer(ctx.storage, {
      backfill: async (height) => {
        const origin = this.registry.readOrigin ?? INTERNAL_ORIGIN;
        const read = (method: string) => cachedResult(env, ctx, origin, method, height);
        const [block, results] = await Promise.all([read("block"), read("block_results")]);
        return newBlockOf(block, results);
      },
      publish: (batch) => {
        this.dialler.progressed();
        this.registry.deliver(batch);
        this.registry.toFollowers(batch.height, Date.now());
      },
      cancel: (reason) => this.registry.cancel(reason),
      pause,
    });
    this.dialler = new FeedDialler(readConfig(env), {
      block: (value) => void this.sequencer.take(value),
      lost: () => this.registry.toFollowers(),
      wanted: () => !this.registry.idle(),
    });
    ctx.blockConcurrencyWhile(async () => {
      await this.registry.restore();
      await this.sequencer.restore();
    });
  }

  /** A shard holds a subscriber: joined (again, harmlessly), and the upstream open or being opened. */
  async join(shard: string, origin?: string): Promise<void> {
    await this.registry.join(shard, origin);
    await this.watchIn(WATCH_MS);
    await this.dialler.dial();
  }

  /** A shard's last subscriber left: with none anywhere, the upstream closes within IDLE_CLOSE_MS. */
  async leave(shard: string): Promise<void> {
    await this.registry.leave(shard);
    if (this.registry.idle()) await this.ctx.storage.setAlarm(Date.now() + IDLE_CLOSE_MS);
  }

  /**
   * A ChainFollower starts (`listening`) or stops listening for heights. Starting opens the upstream
   * without waiting for it: the follower reads the head until heights arrive. Stopping counts as a
   * subscriber leaving.
   */
  async follow(follower: string, listening: boolean): Promise<void> {
    if (!(await this.registry.follow(follower, listening))) return;
    if (this.registry.idle()) await this.ctx.storage.setAlarm(Date.now() + IDLE_CLOSE_MS);
    else await this.watchIn(WATCH_MS);
    if (listening) void this.dialler.dial();
  }

  /** How the feed stands (for tests and operators): its shards, the node it reads and the last height sent. */
  state(): { shards: number; followers: number; upstream: string | null; height: number | null } {
    return { ...this.registry.counts(), upstream: this.dialler.node, height: this.sequencer.last };
  }

  override async alarm(): Promise<void> {
    if (this.registry.idle()) {
      this.dialler.close();
      await this.sequencer.forget();
      return;
    }
    await this.ctx.storage.setAlarm(Date.now() + WATCH_MS);
    await this.dialler.watch(this.sequencer.last);
    // The heartbeat: the last new height and when it was new, never a told-again height passed off as fresh.
    const { last, lastPublishedAt } = this.sequencer;
    if (this.dialler.node && last !== null && lastPublishedAt > 0) this.registry.toFollowers(last, lastPublishedAt);
  }

  /** Sets the watchdog unless an earlier alarm is set. */
  private async watchIn(ms: number): Promise<void> {
    const due = await this.ctx.storage.getAlarm();
    if (due === null || due > Date.now() + ms) await this.ctx.storage.setAlarm(Date.now() + ms);
  }
}

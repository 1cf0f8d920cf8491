/**
 * ChainFollower: the one reader of a network's blocks (`idFromName(chain id)`). While at least one
 * onboarding waits for the chain it asks the latest height once a second and reads each new
 * block's transactions once, through the gateway's upstream machinery; a transaction naming a
 * waiting onboarding's address wakes that onboarding (`chainHint`), which reads its own state.
 * With no onboarding waiting it sleeps (no alarm). The decisions are src/chain-follower/machine.ts.
 *
 * A registration is a lease: renewed by the onboarding's own checks and by each hint it answers as
 * still waiting; one that lapses (FOLLOW_LEASE_MS), or whose onboarding answers a hint as no longer
 * waiting, is dropped, so a lost `unwatch` never keeps the follower awake.
 *
 * On push: while onboardings wait and an RPC node is configured, the follower listens to the network's
 * LiveFeed, which tells it each new height as the node sends it and, every few seconds, the last one with
 * the time it was new (its heartbeat). A told height starts a pass at once, without a head read; the head is
 * read when the feed says it lost its socket (`feedLost`), or once the last told height is PUSH_STALE_MS old
 * (the feed went quiet, or its node stopped moving). Once no
 * onboarding waits it stops listening, so it never holds the feed's upstream socket open by itself.
 *
 * Stored: one key per waiting onboarding (`w:<id>` → its addresses and when it was last renewed) and the cursor.
 */
import { DurableObject } from "cloudflare:workers";
import { BlockReadError, readBlockStrings, readHead } from "../../src/chain-follower/chain-blocks";
import {
  AddressIndex,
  ASLEEP,
  fallAsleep,
  isFollowing,
  lapsed,
  learnHead,
  passFailed,
  passSucceeded,
  PASS_MS,
  readBlock,
  type FollowerCursor,
  type Wake,
} from "../../src/chain-follower/machine";
import { readConfig, type Config } from "../../src/config";
import { UpstreamBoard } from "../../src/gateway/upstream-board";
import { noUpstreamAnswered } from "../../src/gateway/upstreams";
import { fanOut } from "../../src/fan-out";
import { errorText, log } from "../../src/log";

const CURSOR_KEY = "cursor";
/**
 * A told height that was new longer ago than this no longer stands for the head: the pass reads the head.
 * Two and a half of the network's 6 s blocks, so a healthy feed's gap between heights never reads it.
 */
const PUSH_STALE_MS = 15_000;
const WATCH_PREFIX = "w:";

/** A registration as stored: the addresses, and when it was last renewed (ms). */
interface Registration {
  addresses: readonly string[];
  renewed_at: number;
}

export class ChainFollower extends DurableObject<Env> {
  private readonly config: Config;
  private readonly board = new UpstreamBoard();
  private readonly index = new AddressIndex();
  /** When each registration was last renewed (its lease). */
  private readonly renewed = new Map<string, number>();
  private cursor: FollowerCursor = ASLEEP;
  private running: Promise<void> | null = null;
  /** A height was told while a pass ran: run another once it ends. */
  private again = false;
  /** The last height the LiveFeed told, and when it was new at the feed. */
  private pushed: { height: number; at: number } | null = null;
  /** Whether the LiveFeed was asked to tell this follower its heights. */
  // null: not known (a fresh instance after an eviction, or a call that failed): the next pass tells the feed either
  // way, so a follower restarted while listening still stops holding the feed's upstream once nothing waits.
  private listening: boolean | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.config = readConfig(env);
    ctx.blockConcurrencyWhile(async () => {
      this.cursor = (await ctx.storage.get<FollowerCursor>(CURSOR_KEY)) ?? ASLEEP;
      const now = Date.now();
      for (const [key, stored] of await ctx.storage.list<Registration | string[]>({ prefix: WATCH_PREFIX })) {
        // A registration stored before leases existed counts from now.
        const entry = Array.isArray(stored) ? { addresses: stored, renewed_at: now } : stored;
        this.index.set(key.slice(WATCH_PREFIX.length), entry.addresses);
        this.renewed.set(key.slice(WATCH_PREFIX.length), entry.renewed_at);
      }
    });
  }

  /**
   * Registers (or refreshes) an onboarding waiting on `addresses`; `following` says whether it may rely on this
   * follower.
   */
  async watch(onboardingId: string, addresses: string[]): Promise<{ following: boolean }> {
    this.index.set(onboardingId, addresses);
    this.renew(onboardingId);
    await this.keepAwake();
    return { following: isFollowing(this.cursor, Date.now()) };
  }

  /** The onboarding no longer waits for the chain. */
  async unwatch(onboardingId: string): Promise<void> {
    this.drop([onboardingId]);
  }

  /** What the follower knows: where it has read to, whether it follows, and the onboardings waiting. */
  async status(): Promise<{ cursor: FollowerCursor; waiting: string[] }> {
    return { cursor: { ...this.cursor }, waiting: this.index.ids() };
  }

  /**
   * The LiveFeed tells a height and when it was new at the feed (`newAt`, epoch ms): told as it comes, or
   * again as the feed's heartbeat. Its age is counted from `newAt`, so a height that stopped moving (the feed on
   * a lagging node) goes stale and the head is read; a height below one already told is never taken for the head.
   */
  async heightPushed(height: number, newAt: number = Date.now()): Promise<void> {
    const known = this.pushed;
    if (known && height < known.height) return;
    if (known && height === known.height && newAt <= known.at) return;
    this.pushed = { height, at: Math.min(newAt, Date.now()) };
    if (this.index.size === 0) return;
    if (this.running) this.again = true;
    else await this.alarm();
  }

  /**
   * The LiveFeed lost its socket (it dropped, or went silent): the last height told no longer stands for the head,
   * which is read now and each second until heights are told again, not only once PUSH_STALE_MS has passed.
   */
  async feedLost(): Promise<void> {
    this.pushed = null;
    if (this.index.size === 0) return;
    if (this.running) this.again = true;
    else await this.alarm();
  }

  override async alarm(): Promise<void> {
    // One pass at a time: an alarm run early by a test joins the one running; a height told meanwhile runs one more.
    this.running ??= this.passes().finally(() => (this.running = null));
    await this.running;
  }

  private async passes(): Promise<void> {
    do {
      this.again = false;
      await this.pass();
    } while (this.again && this.index.size > 0);
  }

  /** The head: the height the feed told, while fresh; else read from the nodes. */
  private async head(now: number): Promise<number> {
    if (this.pushed && now - this.pushed.at < PUSH_STALE_MS) return this.pushed.height;
    return readHead(this.config, this.board);
  }

  /**
   * Starts or stops listening to the network's LiveFeed: only the network's own follower (`idFromName(chain id)`),
   * and only where an RPC node is configured; any other follower reads the head.
   */
  private async listen(on: boolean): Promise<void> {
    if (on === this.listening || this.config.rpcUpstreamUrls.length === 0) return;
    if (!this.ctx.id.equals(this.env.CHAIN_FOLLOWERS.idFromName(this.config.chainId))) return;
    this.listening = on;
    const feeds = this.env.LIVE_FEEDS;
    try {
      await feeds.get(feeds.idFromName(this.config.chainId)).follow(this.ctx.id.toString(), on);
    } catch (err) {
      // Not listening: the follower reads the head as before, and asks again on its next pass.
      this.listening = null;
      log("warn", "chain_follower_feed_unreachable", { error: String(err) });
    }
  }

  /** Sets the alarm if none is set (a follower that went silent is woken by the next watch). */
  private async keepAwake(): Promise<void> {
    if ((await this.ctx.storage.getAlarm()) === null && !this.running) await this.ctx.storage.setAlarm(Date.now());
  }

  /**
   * One pass: the head, then each missed block in order; hints as they are found; the next pass a second after this one
   * began.
   */
  private async pass(): Promise<void> {
    const started = Date.now();
    this.drop(lapsed(this.renewed, started));
    if (this.index.size === 0) {
      this.save(fallAsleep(this.cursor));
      await this.listen(false);
      return;
    }
    await this.listen(true);
    try {
      const head = learnHead(this.cursor, await this.head(started), this.index.ids());
      this.save(head.cursor);
      await this.hint(head.wake);
      for (const height of head.read) {
        const strings = await readBlockStrings(this.config, this.board, height);
        // The node's transaction index does not show this block yet: stay before it, read it next pass.
        if (strings === null) break;
        const read = readBlock(this.cursor, height, strings, this.index);
        this.save(read.cursor);
        await this.hint(read.wake);
      }
      const done = passSucceeded(this.cursor, Date.now(), this.index.ids());
      this.save(done.cursor);
      await this.hint(done.wake);
    } catch (err) {
      // The nodes failed, or the follower did: either way, onboardings must not rely on it.
      if (!(err instanceof BlockReadError) && !noUpstreamAnswered(err))
        log("error", "chain_follower_fault", { error: String(err) });
      else
        log("warn", "chain_follower_read_failed", {
          error: errorText(err),
          failures: this.cursor.failures + 1,
        });
      const failed = passFailed(this.cursor, this.index.ids());
      this.save(failed.cursor);
      await this.hint(failed.wake);
    }
    if (this.index.size === 0) {
      this.save(fallAsleep(this.cursor));
      await this.listen(false);
      return;
    }
    // On push the alarm is only the watchdog: it reads the head if no height is told meanwhile.
    const pushing = this.pushed !== null && Date.now() - this.pushed.at < PUSH_STALE_MS;
    await this.ctx.storage.setAlarm(Math.max(started + (pushing ? PUSH_STALE_MS : PASS_MS), Date.now()));
  }

  private save(cursor: FollowerCursor): void {
    if (cursor === this.cursor) return;
    this.cursor = cursor;
    void this.ctx.storage.put(CURSOR_KEY, cursor);
  }

  private onboarding(id: string) {
    return this.env.ONBOARDINGS.get(this.env.ONBOARDINGS.idFromName(id));
  }

  /** Renews `id`'s lease (stored with its addresses). */
  private renew(id: string): void {
    const addresses = this.index.addressesOf(id);
    if (addresses === undefined) return;
    const renewed_at = Date.now();
    this.renewed.set(id, renewed_at);
    void this.ctx.storage.put(`${WATCH_PREFIX}${id}`, { addresses, renewed_at } satisfies Registration);
  }

  /** Drops registrations: their onboardings no longer wait, or their lease lapsed. */
  private drop(ids: readonly string[]): void {
    const known = ids.filter((id) => this.index.addressesOf(id) !== undefined);
    for (const id of known) {
      this.index.delete(id);
      this.renewed.delete(id);
    }
    // Storage deletes at most 128 keys at once.
    for (let i = 0; i < known.length; i += 128)
      void this.ctx.storage.delete(known.slice(i, i + 128).map((id) => WATCH_PREFIX + id));
  }

  /**
   * Tells each onboarding of `wake` its hint, a bounded number at a time: one that still waits renews
   * its lease, one that no longer does is dropped, one that cannot be reached is logged and left to its own checks.
   */
  private async hint(wake: Wake | null): Promise<void> {
    if (!wake) return;
    const results = await fanOut(wake.ids, (id) => this.onboarding(id).chainHint(wake.hint));
    const ended: string[] = [];
    results.forEach((result, n) => {
      const id = wake.ids[n]!;
      if (result.status === "rejected")
        log("warn", "chain_hint_failed", { onboarding: id, error: String(result.reason) });
      else if (result.value.waiting) this.renew(id);
      else ended.push(id);
    });
    this.drop(ended);
  }
}

/**
 * LiveShard: one shard of a network's subscriber sockets (`idFromName("<chain id>:<n>")`). It holds
 * them through the WebSocket Hibernation API, each tagged with its client's IP and its
 * subscriptions in its attachment, so they survive hibernation and eviction. What it does with them
 * is src/gateway/live/shard-sockets.ts: frames judged within each socket's rate, reads answered by
 * the RPC face's own function, every height the network's LiveFeed pushes delivered once and in
 * order (or the subscriptions cancelled). It joins the feed with its first subscription and leaves
 * it with its last.
 */
import { DurableObject } from "cloudflare:workers";
import { readConfig } from "../../src/config";
import type { LiveFeed } from "./LiveFeed";
import type { HeightEvents } from "../../src/gateway/live/block-events";
import { cachedRead } from "../../src/gateway/live/cached-read";
import {
  type FeedLink,
  type ShardState,
  STORED_KEYS,
  ShardSockets,
  type ShardStored,
} from "../../src/gateway/live/shard-sockets";

export class LiveShard extends DurableObject<Env> {
  private sockets!: ShardSockets;
  private feedStub: DurableObjectStub<LiveFeed> | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      const stored = Object.fromEntries(await ctx.storage.get<unknown>([...STORED_KEYS])) as ShardStored;
      const read = (origin: string, body: string) => cachedRead(env, ctx, origin, body);
      this.sockets = new ShardSockets(ctx, () => this.feed(), read, stored);
    });
  }

  /** Takes a subscriber's upgrade, forwarded by the door. */
  override fetch(request: Request): Promise<Response> {
    return this.sockets.accept(request);
  }

  override webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    return this.sockets.message(ws, message);
  }

  override webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    return this.sockets.closed(ws, code, reason);
  }

  override webSocketError(ws: WebSocket): Promise<void> {
    return this.sockets.closed(ws);
  }

  /** One height's events from the feed. False: nobody here (the feed may forget this shard). */
  deliver(batch: HeightEvents): boolean {
    return this.sockets.deliver(batch);
  }

  /** Cancels every subscription with CometBFT's error (a gap too long to backfill): the clients subscribe again. */
  cancelAll(reason: string): void {
    this.sockets.cancelAll(reason);
  }

  /** How the shard stands (for tests and operators): its sockets, subscriptions, compiled queries and height. */
  state(): ShardState {
    return this.sockets.state();
  }

  /**
   * One stub for every call, so the feed takes this shard's joins and leaves in the order they were sent; a call
   * that fails drops it (a stub may be broken for good after an error), and the next call makes a new one.
   */
  private feed(): FeedLink {
    const feeds = this.env.LIVE_FEEDS;
    const stub = (this.feedStub ??= feeds.get(feeds.idFromName(readConfig(this.env).chainId)));
    const dropOnError = (err: unknown): never => {
      if (this.feedStub === stub) this.feedStub = null;
      throw err;
    };
    return {
      join: (shard, origin) => stub.join(shard, origin).catch(dropOnError),
      leave: (shard) => stub.leave(shard).catch(dropOnError),
    };
  }
}

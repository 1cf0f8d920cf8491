/**
 * LiveShard: one shard of a network's subscriber sockets (`idFromName("<chain id>:<n>")`). It
 * holds them through the WebSocket Hibernation API, so an idle subscriber costs no duration, and
 * keeps each socket's subscriptions in its attachment, so they survive hibernation and eviction.
 * It answers each frame (src/gateway/live/socket-call.ts): subscription changes, the RPC face's
 * reads from the same cache, refusals. The network's LiveFeed pushes every height's events here,
 * in order, and the shard matches each subscription's query itself. It joins the feed with its
 * first subscription and leaves it with its last.
 */
import { DurableObject } from "cloudflare:workers";
import { readConfig } from "../../src/config";
import type { HeightEvents } from "../../src/gateway/live/block-events";
import { cachedRead } from "../../src/gateway/live/cached-read";
import { cancelFrame, eventFrame } from "../../src/gateway/live/frames";
import { SHARD_NAME_HEADER } from "../../src/gateway/live/limits";
import { type SubscriptionQuery, subscriptionQuery } from "../../src/gateway/live/query/subscription-query";
import { socketCall, type Subscribed } from "../../src/gateway/live/socket-call";
import { RpcError, reply } from "../../src/gateway/rpc/rpc-error";

/** What a socket's attachment holds. */
interface Attachment {
  subs: Subscribed[];
}

/** CometBFT's -32603 for the call in `frame` (a subscription change the shard could not keep). */
function refusal(frame: string | ArrayBuffer, why: string): string {
  const id = (JSON.parse(frame as string) as { id: unknown }).id;
  return reply(JSON.stringify(id), new RpcError(-32603, why).member());
}

export class LiveShard extends DurableObject<Env> {
  /** Compiled queries by their text (compiled again after a wake from hibernation). */
  private readonly compiled = new Map<string, SubscriptionQuery>();
  /** The last height delivered, so a repeat is never sent twice. */
  private lastHeight = 0;

  /** Takes a subscriber's upgrade, forwarded by the Worker's route. */
  override async fetch(request: Request): Promise<Response> {
    const name = request.headers.get(SHARD_NAME_HEADER);
    if (name) await this.ctx.storage.put({ name, origin: new URL(request.url).origin });
    const pair = new WebSocketPair();
    this.ctx.acceptWebSocket(pair[1]);
    pair[1].serializeAttachment({ subs: [] } satisfies Attachment);
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    const attachment = ws.deserializeAttachment() as Attachment;
    const outcome = socketCall(message, attachment.subs);
    if ("read" in outcome) {
      const origin = (await this.ctx.storage.get<string>("origin")) ?? "https://live.internal";
      ws.send(await cachedRead(this.env, this.ctx, origin, outcome.read));
      return;
    }
    if (outcome.subs) {
      const before = this.subscriberCount();
      try {
        // An attachment holds at most 2,048 bytes: five long queries may not fit.
        ws.serializeAttachment({ subs: outcome.subs } satisfies Attachment);
      } catch {
        return ws.send(refusal(message, "this socket's subscriptions are over 2 KiB together: unsubscribe one"));
      }
      const after = this.subscriberCount();
      try {
        const origin = await this.ctx.storage.get<string>("origin");
        if (before === 0 && after > 0) await this.feed().join(await this.name(), origin);
        if (before > 0 && after === 0) await this.feed().leave(await this.name());
      } catch {
        ws.serializeAttachment(attachment);
        return ws.send(refusal(message, "the network's live feed could not be reached; try again"));
      }
    }
    ws.send(outcome.reply);
  }

  override async webSocketClose(ws: WebSocket): Promise<void> {
    await this.drop(ws);
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    await this.drop(ws);
  }

  /** One height's events from the feed: each to every subscription whose query matches. False: nobody here. */
  deliver(batch: HeightEvents): boolean {
    if (batch.height <= this.lastHeight) return this.subscriberCount() > 0;
    this.lastHeight = batch.height;
    let held = false;
    for (const ws of this.ctx.getWebSockets()) {
      const { subs } = ws.deserializeAttachment() as Attachment;
      for (const sub of subs) {
        held = true;
        const query = this.query(sub.query);
        const queryJson = JSON.stringify(sub.query);
        for (const event of batch.events)
          if (event.type === query.type && query.matches(event.keys)) ws.send(eventFrame(sub.id, queryJson, event));
      }
    }
    return held;
  }

  /** Cancels every subscription with CometBFT's error (a gap too long to backfill): the clients subscribe again. */
  cancelAll(reason: string): void {
    for (const ws of this.ctx.getWebSockets()) {
      const { subs } = ws.deserializeAttachment() as Attachment;
      for (const sub of subs) ws.send(cancelFrame(sub.id, reason));
      ws.serializeAttachment({ subs: [] } satisfies Attachment);
    }
  }

  private query(text: string): SubscriptionQuery {
    let query = this.compiled.get(text);
    if (!query) this.compiled.set(text, (query = subscriptionQuery(text)));
    return query;
  }

  private subscriberCount(): number {
    let count = 0;
    for (const ws of this.ctx.getWebSockets()) count += (ws.deserializeAttachment() as Attachment).subs.length;
    return count;
  }

  private async drop(ws: WebSocket): Promise<void> {
    const { subs } = ws.deserializeAttachment() as Attachment;
    ws.serializeAttachment({ subs: [] } satisfies Attachment);
    if (subs.length > 0 && this.subscriberCount() === 0) await this.feed().leave(await this.name());
  }

  private async name(): Promise<string> {
    return (await this.ctx.storage.get<string>("name")) ?? "";
  }

  private feed() {
    const feeds = this.env.LIVE_FEEDS;
    return feeds.get(feeds.idFromName(readConfig(this.env).chainId));
  }
}

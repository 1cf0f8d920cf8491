/**
 * What a LiveShard does with its sockets (durable-objects/live/LiveShard.ts is the thin class around
 * it): it takes an upgrade, tagged with the client's IP, unless that IP holds its cap of sockets;
 * judges each frame (frame-budget.ts, then socket-call.ts); keeps each socket's subscriptions in its
 * attachment, with a count of them and the compiled queries they hold beside it (rebuilt by one scan
 * when the object wakes); delivers each height the feed pushes, and keeps the last one delivered in
 * storage while it holds subscribers, so after a restart it never sends a height twice and cancels
 * rather than skip one. A socket whose match or send throws is closed alone; the others go on.
 */
import { errorResponse, GrpcCode } from "../../errors";
import { RpcError, reply } from "../rpc/rpc-error";
import type { HeightEvents } from "./block-events";
import { CompiledQueries } from "./compiled-queries";
import { FrameBudget, RATE_CLOSE_REASON, RATE_REFUSAL } from "./frame-budget";
import { cancelFrame, eventFrame } from "./frames";
import { CLIENT_IP_HEADER, SHARD_NAME_HEADER, SOCKET_CAP_HEADER } from "./limits";
import { socketCall, type Subscribed } from "./socket-call";

/** What a socket's attachment holds. */
interface Attachment {
  subs: Subscribed[];
}

/** What the shard keeps in storage. */
export interface ShardStored {
  name?: string;
  origin?: string;
  /** The last height delivered, kept only while the shard holds subscribers. */
  height?: number;
  /** Whether the feed counts this shard among its joined ones. */
  joined?: boolean;
}
export const STORED_KEYS = ["name", "origin", "height", "joined"] as const;

/** The feed, as a shard calls it (durable-objects/live/LiveFeed.ts). */
export interface FeedLink {
  join(shard: string, origin?: string): Promise<void>;
  leave(shard: string): Promise<void>;
}

/** How a shard stands (for tests and operators). */
export interface ShardState {
  sockets: number;
  subscriptions: number;
  /** Distinct query texts the subscriptions hold: the compiled queries kept. */
  queries: number;
  height: number | null;
  joined: boolean;
}

/** Where the backfill's and the reads' cache keys live when no upgrade has named an origin. */
const INTERNAL_ORIGIN = "https://live.internal";

const attachmentOf = (ws: WebSocket): Attachment => (ws.deserializeAttachment() as Attachment | null) ?? { subs: [] };

/** CometBFT's -32603 for the call in `frame` (a subscription change the shard could not keep). */
function refusal(frame: string, why: string): string {
  const id = (JSON.parse(frame) as { id: unknown }).id;
  return reply(JSON.stringify(id), new RpcError(-32603, why).member());
}

/** Sends without throwing: a socket that cannot take a frame is closing already. */
function trySend(ws: WebSocket, frame: string): void {
  try {
    ws.send(frame);
  } catch {
    // Its close handler drops its subscriptions.
  }
}

function tryClose(ws: WebSocket, code: number, reason: string): void {
  try {
    ws.close(code, reason);
  } catch {
    // Closed already.
  }
}

export class ShardSockets {
  private subscriptions = 0;
  private readonly queries = new CompiledQueries();
  private readonly budget = new FrameBudget();
  private height: number | null;
  private joined: boolean;
  private joining: Promise<void> | null = null;
  private name: string;
  private origin: string;

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly feed: () => FeedLink,
    /** Answers a read call (a JSON-RPC body) through the RPC face: the reply's text. */
    private readonly read: (origin: string, body: string) => Promise<string>,
    stored: ShardStored,
  ) {
    this.name = stored.name ?? "";
    this.origin = stored.origin ?? INTERNAL_ORIGIN;
    this.height = stored.height ?? null;
    this.joined = stored.joined ?? false;
    // One scan when the object wakes: the count and the queries held follow the attachments.
    for (const ws of ctx.getWebSockets())
      for (const sub of attachmentOf(ws).subs) {
        this.subscriptions += 1;
        this.queries.hold(sub.query);
      }
  }

  /** Takes an upgrade forwarded by the door (src/gateway/live/upgrade.ts): a socket, or the 429 of a full IP. */
  async accept(request: Request): Promise<Response> {
    const ip = request.headers.get(CLIENT_IP_HEADER) ?? "unknown";
    const cap = Number(request.headers.get(SOCKET_CAP_HEADER) ?? 0);
    if (cap > 0 && this.ctx.getWebSockets(ip).length >= cap) {
      return errorResponse({
        status: 429,
        code: GrpcCode.RESOURCE_EXHAUSTED,
        reason: "TOO_MANY_SOCKETS",
        message: `This client IP holds ${cap} live sockets, the most allowed; close one to open another`,
      });
    }
    const name = request.headers.get(SHARD_NAME_HEADER);
    const origin = new URL(request.url).origin;
    if (name && (name !== this.name || origin !== this.origin)) {
      [this.name, this.origin] = [name, origin];
      await this.ctx.storage.put({ name, origin });
    }
    const pair = new WebSocketPair();
    this.ctx.acceptWebSocket(pair[1], [ip]);
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  /** One frame: refused past the socket's rate before it is read, else judged and answered. */
  async message(ws: WebSocket, frame: string | ArrayBuffer): Promise<void> {
    // Frames still arriving on a socket closed for its rate are dropped unread.
    if (ws.readyState !== WebSocket.OPEN) return;
    const verdict = this.budget.take(ws, Date.now());
    if (verdict !== "read") {
      trySend(ws, RATE_REFUSAL);
      if (verdict === "close") {
        tryClose(ws, 1008, RATE_CLOSE_REASON);
        await this.drop(ws, true);
      }
      return;
    }
    for (;;) {
      const { subs } = attachmentOf(ws);
      const outcome = socketCall(frame, subs);
      if ("read" in outcome) return trySend(ws, await this.read(this.origin, outcome.read));
      const next = outcome.subs;
      if (next && next.length > subs.length && !this.joined) {
        // Judged again once joined: the socket's subscriptions may have changed meanwhile.
        try {
          await this.join();
        } catch {
          return trySend(ws, refusal(frame as string, "the network's live feed could not be reached; try again"));
        }
        // A socket that closed meanwhile has had its close handled: nothing is kept for it.
        if (ws.readyState !== WebSocket.OPEN) return;
        continue;
      }
      if (next) {
        try {
          // An attachment holds at most 2,048 bytes: five long queries may not fit.
          ws.serializeAttachment({ subs: next } satisfies Attachment);
        } catch {
          return trySend(
            ws,
            refusal(frame as string, "this socket's subscriptions are over 2 KiB together: unsubscribe one"),
          );
        }
        this.changed(subs, next);
      }
      trySend(ws, outcome.reply);
      if (next && next.length < subs.length && this.subscriptions === 0) await this.leave();
      return;
    }
  }

  /** A socket closed or failed: its subscriptions go, and the feed is left with the last one. */
  async closed(ws: WebSocket, code = 1000, reason = ""): Promise<void> {
    // The closing handshake's reply (1005 and 1006 are never sent: they say no code came).
    tryClose(ws, code === 1005 || code === 1006 ? 1000 : code, reason);
    await this.drop(ws, true);
  }

  /** One height's events, to every subscription whose query matches. False: nobody here (the feed may forget it). */
  deliver(batch: HeightEvents): boolean {
    if (this.subscriptions === 0) {
      // A subscribe waiting on its join is somebody: the feed, which may already count the join, must keep this shard.
      if (this.joining) return true;
      this.emptied();
      return false;
    }
    const last = this.height;
    if (last !== null && batch.height <= last) return true;
    if (last !== null && batch.height > last + 1) {
      const missed =
        last + 1 === batch.height - 1 ? `height ${last + 1}` : `heights ${last + 1} to ${batch.height - 1}`;
      this.cancelAll(`${missed} never reached this shard`);
      return false;
    }
    this.height = batch.height;
    void this.ctx.storage.put("height", batch.height);
    for (const ws of this.ctx.getWebSockets()) {
      const { subs } = attachmentOf(ws);
      if (subs.length === 0) continue;
      try {
        for (const sub of subs) {
          const query = this.queries.query(sub.query);
          const queryJson = JSON.stringify(sub.query);
          for (const event of batch.events)
            if (event.type === query.type && query.matches(event.keys)) ws.send(eventFrame(sub.id, queryJson, event));
        }
      } catch {
        // This socket missed an event it was owed: it is closed, and it alone.
        tryClose(ws, 1011, `height ${batch.height} could not be delivered to this socket`);
        void this.drop(ws, false);
      }
    }
    return this.subscriptions > 0;
  }

  /** Cancels every subscription with CometBFT's error, one pass over the sockets; the clients subscribe again. */
  cancelAll(reason: string): void {
    for (const ws of this.ctx.getWebSockets()) {
      const { subs } = attachmentOf(ws);
      if (subs.length === 0) continue;
      for (const sub of subs) trySend(ws, cancelFrame(sub.id, reason));
      ws.serializeAttachment({ subs: [] } satisfies Attachment);
    }
    this.subscriptions = 0;
    this.queries.clear();
    this.emptied();
  }

  state(): ShardState {
    const { subscriptions, height, joined } = this;
    return { sockets: this.ctx.getWebSockets().length, subscriptions, queries: this.queries.size, height, joined };
  }

  /** Joins the feed: concurrent subscribes share one attempt; after a failed one the next subscribe tries again. */
  private join(): Promise<void> {
    this.joining ??= (async () => {
      try {
        await this.feed().join(this.name, this.origin);
        this.joined = true;
        await this.ctx.storage.put("joined", true);
      } finally {
        this.joining = null;
      }
    })();
    return this.joining;
  }

  private async leave(): Promise<void> {
    // A leave that fails costs nothing: the feed forgets the shard at its next delivery (false).
    await this.feed()
      .leave(this.name)
      .catch(() => undefined);
  }

  /** The last subscription went: the feed forgets this shard, and a first subscriber starts from the next height. */
  private emptied(): void {
    if (!this.joined && this.height === null) return;
    this.joined = false;
    this.height = null;
    void this.ctx.storage.put("joined", false);
    void this.ctx.storage.delete("height");
  }

  private changed(before: readonly Subscribed[], after: readonly Subscribed[]): void {
    for (const sub of before) if (!after.some((s) => s.query === sub.query)) this.queries.release(sub.query);
    for (const sub of after) if (!before.some((s) => s.query === sub.query)) this.queries.hold(sub.query);
    const had = this.subscriptions;
    this.subscriptions += after.length - before.length;
    if (had > 0 && this.subscriptions === 0) this.emptied();
  }

  private async drop(ws: WebSocket, leave: boolean): Promise<void> {
    const { subs } = attachmentOf(ws);
    if (subs.length === 0) return;
    try {
      ws.serializeAttachment({ subs: [] } satisfies Attachment);
    } catch {
      // A socket gone for good keeps no attachment anyway.
    }
    this.changed(subs, []);
    if (leave && this.subscriptions === 0) await this.leave();
  }
}

/**
 * WebSockets in the world, each end a small object the kernel drives: frames arrive after a seeded
 * latency, in the order they were sent, never after the socket closed.
 *
 * - A subscriber's socket (`WebSocketPair` under the kernel): its server end is accepted by a
 *   LiveShard through the Hibernation API (`ctx.acceptWebSocket`), keeps its attachment through
 *   structuredClone (at most 2,048 bytes, as the platform allows) and outlives the shard's
 *   instance; each frame the client sends is the platform calling the shard's `webSocketMessage`,
 *   constructing a fresh instance after an eviction. The client end records every frame it gets.
 * - An outbound socket (a LiveFeed's upstream): the answer of a `fetch` with `Upgrade: websocket`
 *   to a node of the world (./sim-node.ts); `accept()`, `addEventListener`, `send`, `close`. It dies
 *   with the incarnation that opened it, as a Durable Object's outbound socket does.
 */
import type { Kernel } from "./kernel";
import { type Incarnation, running, type SimObject } from "./platform";

/** A frame's latency on a socket, each way, in ms. */
const FRAME_MIN_MS = 1;
const FRAME_MAX_MS = 20;
/** A socket's attachment holds at most this many bytes (its JSON as the measure). */
const ATTACHMENT_BYTES = 2048;

/** Schedules `run` after a frame's latency, never before an earlier frame of the same direction. */
class Wire {
  private last = 0;
  constructor(private readonly kernel: Kernel) {}
  send(run: () => void): void {
    const at = Math.max(this.last, this.kernel.now + this.kernel.random.int(FRAME_MIN_MS, FRAME_MAX_MS));
    this.last = at;
    this.kernel.at(at, run, false);
  }
}

/** What a subscriber's client end got: every frame, and the close. */
export class ClientEnd {
  readonly received: { at: number; text: string }[] = [];
  closed: { at: number; code: number; reason: string } | null = null;
  server!: ServerEnd;
  /** Told of each frame as it arrives (the client's own logic: a re-subscribe after a cancel). */
  onFrame: (text: string) => void = () => {};
  private readonly wire: Wire;

  constructor(
    readonly kernel: Kernel,
    readonly name: string,
  ) {
    this.wire = new Wire(kernel);
  }

  /** A frame to the shard: the platform calls its `webSocketMessage` (a fresh instance if it was evicted). */
  send(text: string): void {
    if (this.closed) return;
    const server = this.server;
    this.wire.send(() => {
      if (server.closed || !server.object) return;
      server.object.dispatch("webSocketMessage", [server, text]);
    });
  }

  /** The client goes away: the shard's `webSocketClose`. */
  close(code = 1000, reason = "bye"): void {
    if (this.closed) return;
    this.closed = { at: this.kernel.now, code, reason };
    const server = this.server;
    this.wire.send(() => {
      if (server.closed) return;
      server.closed = { code, reason };
      server.object?.sockets.delete(server);
      server.object?.dispatch("webSocketClose", [server, code, reason, true]);
    });
  }

  /** A frame from the shard. */
  deliver(text: string): void {
    if (this.closed) return;
    this.received.push({ at: this.kernel.now, text });
    this.onFrame(text);
  }

  /** The shard closed the socket. */
  closedByServer(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = { at: this.kernel.now, code, reason };
  }
}

/** The end a LiveShard holds: `send`, `close`, the attachment; its object's sockets set holds it once accepted. */
export class ServerEnd {
  closed: { code: number; reason: string } | null = null;
  object: SimObject | null = null;
  tags: string[] = [];
  private attachment: unknown = null;
  private readonly wire: Wire;
  /** Frames sent (the world's count of the shard's work). */
  sent = 0;

  /** WebSocket.OPEN (1) until closed, then CLOSED (3). */
  get readyState(): number {
    return this.closed || this.client.closed ? 3 : 1;
  }

  constructor(
    readonly kernel: Kernel,
    readonly client: ClientEnd,
  ) {
    this.wire = new Wire(kernel);
  }

  send(message: string | ArrayBuffer): void {
    if (this.closed) throw new TypeError("WebSocket send() after close");
    this.sent++;
    const text = typeof message === "string" ? message : new TextDecoder().decode(message);
    this.wire.send(() => this.client.deliver(text));
  }

  close(code = 1000, reason = ""): void {
    if (this.closed) return;
    this.closed = { code, reason };
    this.object?.sockets.delete(this);
    this.wire.send(() => this.client.closedByServer(code, reason));
  }

  serializeAttachment(value: unknown): void {
    const copy = structuredClone(value);
    if (JSON.stringify(copy ?? null).length > ATTACHMENT_BYTES)
      throw new Error(`the attachment is over ${ATTACHMENT_BYTES} bytes`);
    this.attachment = copy;
  }

  deserializeAttachment(): unknown {
    return structuredClone(this.attachment);
  }

  accept(): void {}
  addEventListener(): void {}
}

/** `new WebSocketPair()` under the kernel: [client, server]. */
export function socketPair(kernel: Kernel, name: string): { 0: ClientEnd; 1: ServerEnd } {
  const client = new ClientEnd(kernel, name);
  const server = new ServerEnd(kernel, client);
  client.server = server;
  return { 0: client, 1: server };
}

type Listener = (event: { data?: unknown; code?: number; reason?: string }) => void;

/** The far end of an outbound socket: a node of the world. */
export interface NodeEnd {
  /** A frame from the edge. */
  message(text: string): void;
  /** The edge closed the socket (or its object died). */
  closed(): void;
}

/** An outbound socket as the edge holds it: `accept()`, listeners, `send`, `close`. */
export class OutboundSocket {
  private readonly listeners = new Map<string, Listener[]>();
  private readonly toNode: Wire;
  private readonly toEdge: Wire;
  open = true;
  node!: NodeEnd;

  get readyState(): number {
    return this.open ? 1 : 3;
  }

  constructor(
    readonly kernel: Kernel,
    readonly url: string,
    /** The incarnation that opened it: an eviction ends the socket, and the node sees it close. */
    private readonly owner: Incarnation | null,
  ) {
    this.toNode = new Wire(kernel);
    this.toEdge = new Wire(kernel);
    owner?.onDeath.add(() => this.end());
  }

  accept(): void {}

  addEventListener(type: string, listener: Listener): void {
    const list = this.listeners.get(type) ?? [];
    list.push(listener);
    this.listeners.set(type, list);
  }

  send(text: string): void {
    if (!this.open) throw new TypeError("WebSocket send() after close");
    this.toNode.send(() => this.node.message(text));
  }

  close(): void {
    this.end();
  }

  /** The node sends a frame. */
  fromNode(text: string): void {
    if (!this.open) return;
    this.toEdge.send(() => this.emit("message", { data: text }));
  }

  /** The node (or the platform: an aborted upgrade) ends the socket: the edge's close listeners run. */
  drop(code = 1006, reason = "connection lost"): void {
    if (!this.open) return;
    this.open = false;
    this.node.closed();
    this.toEdge.send(() => this.emit("close", { code, reason }));
  }

  private end(): void {
    if (!this.open) return;
    this.open = false;
    this.toNode.send(() => this.node.closed());
  }

  private emit(type: string, event: { data?: unknown; code?: number; reason?: string }): void {
    const owner = this.owner;
    if (owner && !owner.alive) return;
    for (const listener of this.listeners.get(type) ?? [])
      if (owner) running.run(owner, () => listener(event));
      else listener(event);
  }
}

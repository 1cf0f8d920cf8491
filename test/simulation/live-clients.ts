/**
 * The live face's crowd: subscribers that open a socket through the Worker's own door
 * (`GET /rpc/websocket` with `Upgrade: websocket`, answered by src/index.ts's fetch, which picks a
 * shard and forwards the upgrade to it) and subscribe, honest (`tm.event='NewBlock'`,
 * `tm.event='NewBlockHeader'`) or hostile (a tag that names a prototype's member); one may flood
 * its shard with frames. Each client end records every frame it gets (./sockets.ts): what the
 * live invariants read (./live-invariants.ts). An honest client subscribes again a second after
 * its subscription is cancelled, as CometBFT's clients are told to.
 */
import worker from "../../src/index";
import type { Random } from "./kernel";
import type { ClientEnd } from "./sockets";
import type { World } from "./world";

const SECOND = 1000;
const MINUTE = 60 * SECOND;

const HONEST = ["tm.event='NewBlock'", "tm.event='NewBlockHeader'"] as const;
const HOSTILE = [
  "tm.event='NewBlock' AND constructor EXISTS",
  "tm.event='NewBlock' AND __proto__ EXISTS",
  "tm.event='NewBlock' AND toString EXISTS",
  "tm.event='NewBlockHeader' AND hasOwnProperty EXISTS",
] as const;

/** One subscription as its client saw it. */
export interface Subscription {
  client: string;
  /** The subscribe's id (JSON text), unique in the world. */
  id: string;
  query: string;
  honest: boolean;
  sentAt: number;
  /** When the subscribe was answered `{}` (null: not, or refused). */
  answeredAt: number | null;
  refused: string | null;
  /** Heights received, in arrival order, with when. */
  heights: { height: number; at: number }[];
  cancelledAt: number | null;
  cancelReason: string | null;
  /** When the client left (closed its socket), or its socket was closed by the shard. */
  endedAt: number | null;
}

export interface LiveClient {
  name: string;
  ip: string;
  socket: ClientEnd | null;
  /** The door's refusal (a status), if the upgrade was refused. */
  refusedWith: number | null;
  honest: boolean;
  /** The shard the door sent it to. */
  shard: string | null;
}

export class LiveCrowd {
  readonly clients: LiveClient[] = [];
  readonly subscriptions = new Map<string, Subscription>();
  private ids = 0;
  /** Frames a flood sent, and the replies it got. */
  flood: { client: string; sent: number } | null = null;

  constructor(
    private readonly world: World,
    readonly leaveAt: number,
  ) {}

  /** Plans the crowd of a seed: who arrives when, with which queries, and whether one floods. */
  plan(random: Random, start: number, refusals: readonly { from: number }[] = []): void {
    const kernel = this.world.kernel;
    const honest = random.int(3, 14);
    const arrivals: { at: number; honest: boolean }[] = [];
    for (let i = 0; i < honest; i++) {
      const at = start + random.int(10 * SECOND, 15 * MINUTE);
      arrivals.push({ at, honest: true });
      // Now and then a second socket arrives at the same moment (a page's reconnect, a burst of clients).
      if (random.chance(0.3)) arrivals.push({ at: at + random.int(0, 40), honest: true });
    }
    // Hostile sockets come in numbers (the door spreads them over the 16 shards as it spreads everyone).
    const hostile = random.chance(0.4) ? random.int(4, 16) : 0;
    for (let i = 0; i < hostile; i++) arrivals.push({ at: start + random.int(MINUTE, 14 * MINUTE), honest: false });
    // Now and then a crowd arrives at once just as the feed stops answering: joins fail while others subscribe.
    for (const window of refusals)
      if (random.chance(0.5))
        for (let i = random.int(6, 12); i > 0; i--)
          arrivals.push({ at: window.from + random.int(-100, 50), honest: true });
    const floods = random.chance(0.3);
    arrivals.sort((a, b) => a.at - b.at);
    for (const [n, arrival] of arrivals.entries()) {
      const client: LiveClient = {
        name: `live_${n + 1}`,
        ip: `198.51.100.${1 + random.int(0, 3)}`,
        socket: null,
        refusedWith: null,
        honest: arrival.honest,
        shard: null,
      };
      this.clients.push(client);
      const queries = arrival.honest
        ? random.chance(0.5)
          ? [...HONEST]
          : [random.pick(HONEST)]
        : [random.pick(HOSTILE)];
      kernel.at(arrival.at, () => this.open(client, queries));
      // Honest clients stay to the end; a hostile one may leave early.
      const leave = arrival.honest ? this.leaveAt : arrival.at + random.int(MINUTE, 10 * MINUTE);
      kernel.at(Math.min(leave, this.leaveAt), () => this.leave(client));
    }
    if (floods && this.clients.length > 0) {
      const client: LiveClient = {
        name: "live_flood",
        ip: "203.0.113.9",
        socket: null,
        refusedWith: null,
        honest: false,
        shard: null,
      };
      this.clients.push(client);
      const at = start + random.int(2 * MINUTE, 12 * MINUTE);
      const frames = random.int(300, 800);
      kernel.at(at, () => this.open(client, ["tm.event='Tx'"], frames));
      kernel.at(at + 5 * MINUTE, () => this.leave(client));
    }
  }

  /** Opens a socket through the Worker's door, then subscribes (and floods, for the flood's client). */
  private open(client: LiveClient, queries: readonly string[], flood = 0): void {
    const world = this.world;
    world.trace(`${client.name} opens a socket (${client.honest ? "honest" : "hostile"}: ${queries.join("; ")})`);
    const request = new Request("https://edge.test/rpc/websocket", {
      headers: { upgrade: "websocket", "cf-connecting-ip": client.ip },
    });
    const context = { waitUntil() {}, passThroughOnException() {}, props: {} } as unknown as ExecutionContext;
    Promise.resolve(worker.fetch!(request as never, world.env, context)).then(
      (response) => {
        const socket = (response as Response & { webSocket?: ClientEnd }).webSocket;
        if (response.status !== 101 || !socket) {
          client.refusedWith = response.status;
          world.trace(`${client.name} refused at the door: ${response.status}`);
          return;
        }
        client.socket = socket;
        client.shard = socket.server.object?.name ?? null;
        world.trace(`${client.name} holds a socket on shard ${client.shard}`);
        socket.onFrame = (text) => this.frame(client, text);
        for (const query of queries) this.subscribe(client, query);
        for (let k = 0; k < flood; k++) this.floodFrame(client, k);
        if (flood > 0) this.flood = { client: client.name, sent: flood };
      },
      (error: unknown) => world.errors.push(`the door failed ${client.name}'s upgrade: ${String(error)}`),
    );
  }

  private subscribe(client: LiveClient, query: string): void {
    const id = JSON.stringify(`${client.name}-${++this.ids}`);
    this.subscriptions.set(id, {
      client: client.name,
      id,
      query,
      honest: client.honest,
      sentAt: this.world.kernel.now,
      answeredAt: null,
      refused: null,
      heights: [],
      cancelledAt: null,
      cancelReason: null,
      endedAt: null,
    });
    client.socket?.send(JSON.stringify({ jsonrpc: "2.0", id: JSON.parse(id), method: "subscribe", params: { query } }));
  }

  /** A flood's frame: subscribes and unsubscribes of ever-new queries, and junk. */
  private floodFrame(client: LiveClient, k: number): void {
    const query = `tm.event='Tx' AND transfer.amount > ${k}`;
    const frames = [
      { jsonrpc: "2.0", id: `f${k}`, method: "subscribe", params: { query } },
      { jsonrpc: "2.0", id: `u${k}`, method: "unsubscribe", params: { query } },
    ];
    client.socket?.send(k % 5 === 4 ? "not json" : JSON.stringify(frames[k % 2]));
  }

  private leave(client: LiveClient): void {
    if (!client.socket || client.socket.closed) return;
    this.world.trace(`${client.name} leaves`);
    client.socket.close(1000, "bye");
    this.end(client, this.world.kernel.now);
  }

  private end(client: LiveClient, at: number): void {
    for (const sub of this.subscriptions.values())
      if (sub.client === client.name && sub.endedAt === null && sub.cancelledAt === null) sub.endedAt = at;
  }

  /** What the client makes of a frame: an answer to its subscribe, an event, a cancellation. */
  private frame(client: LiveClient, text: string): void {
    const now = this.world.kernel.now;
    let message: { id?: unknown; result?: { data?: { value?: unknown } }; error?: { code: number; data?: string } };
    try {
      message = JSON.parse(text);
    } catch {
      this.world.errors.push(`${client.name} got a frame that is not JSON: ${text.slice(0, 80)}`);
      return;
    }
    const sub = this.subscriptions.get(JSON.stringify(message.id));
    if (!sub) return;
    if (message.error) {
      if (message.error.code === -32000 && sub.answeredAt !== null) {
        sub.cancelledAt = now;
        sub.cancelReason = message.error.data ?? "";
        this.world.trace(`${client.name} ${sub.id} cancelled: ${sub.cancelReason}`);
        // Told to subscribe again: an honest client does, a second later.
        if (sub.honest)
          this.world.kernel.after(SECOND, () => {
            if (client.socket && !client.socket.closed && now < this.leaveAt) this.subscribe(client, sub.query);
          });
      } else if (sub.answeredAt === null) {
        sub.refused = message.error.data ?? String(message.error.code);
        this.world.trace(`${client.name} ${sub.id} refused: ${sub.refused}`);
      }
      return;
    }
    const data = message.result?.data;
    if (!data) {
      if (sub.answeredAt === null) {
        sub.answeredAt = now;
        this.world.trace(`${client.name} ${sub.id} answered {}`);
      }
      return;
    }
    const value = data.value as { block?: { header?: { height?: string } }; header?: { height?: string } };
    const height = Number(value.block?.header?.height ?? value.header?.height);
    if (Number.isFinite(height)) sub.heights.push({ height, at: now });
  }

  /** What the crowd did, in a line (a run's report). */
  summary(): string {
    const subs = [...this.subscriptions.values()];
    const refused = this.clients.filter((c) => c.refusedWith !== null).map((c) => c.refusedWith);
    return (
      `live: ${this.clients.length} clients (${this.clients.filter((c) => !c.honest).length} hostile),` +
      ` ${this.clients.filter((c) => c.socket).length} sockets, ${refused.length} refused at the door` +
      `${refused.length ? ` (${[...new Set(refused)].join(", ")})` : ""}; ${subs.length} subscribes,` +
      ` ${subs.filter((s) => s.answeredAt !== null).length} answered {}, ${subs.filter((s) => s.refused).length}` +
      ` refused, ${subs.filter((s) => s.cancelledAt !== null).length} cancelled;` +
      ` ${subs.reduce((n, s) => n + s.heights.length, 0)} heights received` +
      (this.flood ? `; ${this.flood.client} sent ${this.flood.sent} frames at once` : "")
    );
  }

  /** The sockets the shards closed (marks their subscriptions ended). */
  settle(): void {
    for (const client of this.clients)
      if (client.socket?.closed && client.socket.closed.at < this.leaveAt) this.end(client, client.socket.closed.at);
  }
}

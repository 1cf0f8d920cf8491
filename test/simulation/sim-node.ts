/**
 * The chain's CometBFT RPC nodes (RPC_UPSTREAM_URLS), as the live face reads them: `/websocket`
 * (a `subscribe` to `tm.event='NewBlock'` answered `{}`, then a NewBlock frame per height as the
 * node commits it, built as devnet/comet-websocket.ts builds them: the block with its transactions,
 * `result_finalize_block` with a result per transaction) and `block`/`block_results` at a height
 * for the backfill. The heights are the chain's (./services.ts: a block every 5 s).
 *
 * The live faults (./live-faults.ts) act per node: down (its sockets dropped, upgrades refused,
 * reads unreachable), stalled (no frames; the heights of the stall are never sent), lagging
 * (its head some blocks behind), and shuffled (a height sent twice, or after the next one).
 */
import type { Kernel } from "./kernel";
import { type Incarnation, kernelIo } from "./platform";
import type { SimChain } from "./services";
import type { LiveFaults } from "./live-faults";
import { type NodeEnd, OutboundSocket } from "./sockets";

/** The world's CometBFT RPC nodes, in RPC_UPSTREAM_URLS order. */
export const RPC_NODE_URLS = ["https://rpc-1.chain.test/rpc", "https://rpc-2.chain.test/rpc"] as const;

const BLOCK_MS = 5_000;

/** One socket the node serves: its subscription id (null before the subscribe) and the next height it owes. */
interface Served {
  socket: OutboundSocket;
  subscription: string | null;
  next: number;
  /** A height held back to be sent after the next one (out of order). */
  held: number | null;
}

export class SimNode {
  private readonly served = new Set<Served>();
  private ticking = false;
  /** Upgrades taken (connections) and subscriptions answered, over the run. */
  connections = 0;
  subscriptions = 0;

  constructor(
    private readonly kernel: Kernel,
    private readonly chain: SimChain,
    readonly faults: LiveFaults,
    readonly index: number,
    private readonly chainId: string,
    private readonly trace: (line: string) => void = () => {},
  ) {}

  /** Sockets it serves now. */
  get open(): number {
    return this.served.size;
  }

  /** The node's own head: the chain's, less its lag. */
  head(): number {
    return Math.max(1, this.chain.head() - this.faults.lag(this.index, this.kernel.now));
  }

  /** An upgrade: the socket, or "unreachable" while the node is down. */
  upgrade(url: string, owner: Incarnation | null): OutboundSocket | "unreachable" {
    if (this.faults.down(this.index, this.kernel.now) || (owner && !owner.alive)) return "unreachable";
    this.connections++;
    this.trace(`rpc node ${this.index + 1} takes an upgrade (connection ${this.connections}) at height ${this.head()}`);
    const socket = new OutboundSocket(this.kernel, url, owner);
    const served: Served = { socket, subscription: null, next: 0, held: null };
    const end: NodeEnd = {
      message: (text) => this.message(served, text),
      closed: () => this.served.delete(served),
    };
    socket.node = end;
    this.served.add(served);
    this.tick();
    return socket;
  }

  /** A read (`GET <base>/block?height=N`, `/block_results?height=N`, `/status`): a JSON-RPC answer. */
  read(url: URL): Promise<Response> | "unreachable" {
    if (this.faults.down(this.index, this.kernel.now)) return "unreachable";
    return kernelIo(this.kernel, this.kernel.random.int(20, 200), () => {
      const method = url.pathname.slice(url.pathname.lastIndexOf("/") + 1);
      const head = this.head();
      const height = Number(url.searchParams.get("height") ?? head);
      const reply = (body: unknown) => rpcAnswer({ jsonrpc: "2.0", id: -1, ...(body as object) });
      if (height > head)
        return reply({
          error: {
            code: -32603,
            message: "Internal error",
            data: `height ${height} must be less than or equal to the current blockchain height ${head}`,
          },
        });
      if (method === "block") return reply({ result: this.block(height) });
      if (method === "block_results") return reply({ result: this.results(height) });
      // The feed asks an earlier node how far it is before it moves back to it (src/gateway/live/feed-dialler.ts).
      if (method === "status") return reply({ result: { sync_info: { latest_block_height: String(head) } } });
      return reply({ error: { code: -32601, message: "Method not found", data: method } });
    });
  }

  private message(served: Served, text: string): void {
    const call = JSON.parse(text) as { id: unknown; method: string };
    if (call.method !== "subscribe") return;
    served.subscription = JSON.stringify(call.id);
    served.next = this.head() + 1;
    this.subscriptions++;
    served.socket.fromNode(`{"jsonrpc":"2.0","id":${served.subscription},"result":{}}`);
  }

  /** At each block, every subscribed socket gets the heights it is owed (unless the node is down or stalled). */
  private tick(): void {
    if (this.ticking) return;
    this.ticking = true;
    const nextBlock = (Math.floor((this.kernel.now - this.chain.genesis) / BLOCK_MS) + 1) * BLOCK_MS;
    this.kernel.at(this.chain.genesis + nextBlock + 1, () => this.beat(), true);
  }

  private beat(): void {
    this.ticking = false;
    const now = this.kernel.now;
    if (this.faults.down(this.index, now) && this.served.size > 0) this.trace(`rpc node ${this.index + 1} is down`);
    if (this.faults.down(this.index, now))
      for (const served of [...this.served]) {
        this.served.delete(served);
        served.socket.drop(1006, "node down");
      }
    if (this.served.size === 0) return;
    const head = this.head();
    for (const served of this.served) {
      if (served.subscription === null) continue;
      if (this.faults.stalled(this.index, now)) {
        served.next = Math.max(served.next, head + 1);
        continue;
      }
      for (; served.next <= head; served.next++) {
        const height = served.next;
        const shuffle = this.faults.shuffled(this.index, now) ? this.kernel.random.int(0, 2) : 0;
        if (shuffle === 1 && served.held === null && height < head) {
          served.held = height;
          continue;
        }
        this.send(served, height);
        if (served.held !== null) {
          this.send(served, served.held);
          served.held = null;
        }
        if (shuffle === 2) this.send(served, height);
      }
    }
    this.tick();
  }

  private send(served: Served, height: number): void {
    const value = { ...this.block(height), result_finalize_block: this.finalize(height) };
    served.socket.fromNode(
      JSON.stringify({
        jsonrpc: "2.0",
        id: JSON.parse(served.subscription!),
        result: {
          query: "tm.event='NewBlock'",
          data: { type: "tendermint/event/NewBlock", value },
          events: { "tm.event": ["NewBlock"] },
        },
      }),
    );
  }

  private block(height: number) {
    const time = new Date(this.chain.genesis + (height - 1) * BLOCK_MS).toISOString();
    return {
      block_id: { hash: hashOf(height), parts: { total: 1, hash: hashOf(height + 1) } },
      block: {
        header: { chain_id: this.chainId, height: String(height), time },
        data: { txs: this.chain.txsAt(height).map((hash) => btoa(hash)) },
      },
    };
  }

  private finalize(height: number) {
    return {
      events: [],
      tx_results: this.txResults(height),
      validator_updates: [],
      consensus_param_updates: null,
      app_hash: btoa(hashOf(height)),
    };
  }

  private results(height: number) {
    const txs = this.txResults(height);
    return {
      height: String(height),
      txs_results: txs.length ? txs : null,
      finalize_block_events: [],
      validator_updates: [],
      consensus_param_updates: null,
      app_hash: btoa(hashOf(height)),
    };
  }

  private txResults(height: number) {
    return this.chain.txsAt(height).map((_, index) => ({
      code: 0,
      events: [{ type: "message", attributes: [{ key: "index", value: String(index) }] }],
    }));
  }
}

const hashOf = (n: number) => n.toString(16).padStart(64, "0").toUpperCase();

/** A node's JSON-RPC answer, as fetch's callers read it. */
function rpcAnswer(body: unknown): Response {
  const text = JSON.stringify(body);
  return {
    status: 200,
    ok: true,
    headers: new Headers({ "content-type": "application/json" }),
    body: null,
    text: async () => text,
    json: async () => JSON.parse(text),
  } as unknown as Response;
}

/**
 * What the objects reach by fetch, served by the kernel: the host's webhook receiver and the
 * chain's LCD nodes (the stock Cosmos SDK endpoints and the network's own that src/gateway's
 * upstream machinery asks). Each answers after a seeded latency and obeys the fault plan in force
 * when the request arrives; an answer is a small Response-like object whose body is read at once,
 * so no platform stream enters the world.
 */
import type { FaultPlan } from "./faults";
import type { Kernel } from "./kernel";
import { kernelIo } from "./platform";

/** The host's webhook endpoint and the chain's nodes, as the deployment of the world names them. */
export const RECEIVER_URL = "https://receiver.sim/hooks/chain-edge";
export const NODE_URLS = ["https://node-1.sim", "https://node-2.sim"];

/** One receipt at the host's webhook endpoint. */
export interface Receipt {
  at: number;
  onboarding: string;
  eventId: string;
  status: number;
}

/** An answer as fetch's callers read it: status, headers, the body as text; no stream. */
function answer(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  return {
    status,
    ok: status >= 200 && status < 300,
    headers: new Headers({ "content-type": "application/json", ...headers }),
    body: null,
    text: async () => text,
    json: async () => JSON.parse(text),
  } as unknown as Response;
}

/** The host's receiver: 2xx, or what the fault plan says when the request arrives. */
export class SimReceiver {
  readonly receipts: Receipt[] = [];
  /** Told of every receipt as it happens (the checks that run during the world). */
  onReceipt: (receipt: Receipt) => void = () => {};

  constructor(
    private readonly kernel: Kernel,
    private readonly faults: FaultPlan,
  ) {}

  /** A POST of one event; never answers while it hangs (the caller's timeout ends it). */
  serve(body: string, headers: Headers): Promise<Response> | "hang" | "unreachable" {
    const onboarding = (JSON.parse(body) as { data?: { id?: string } }).data?.id ?? "?";
    const eventId = headers.get("webhook-id") ?? "?";
    const mode = this.faults.receiver(this.kernel.now, onboarding);
    const random = this.kernel.random;
    if (mode === "hang" || mode === "unreachable") return mode;
    const status =
      mode === "5xx" ? random.pick([500, 502, 503]) : mode === "refuse" ? 422 : mode === "unauthorized" ? 401 : 200;
    return kernelIo(this.kernel, random.int(10, 300), () => {
      const receipt = { at: this.kernel.now, onboarding, eventId, status };
      this.receipts.push(receipt);
      this.onReceipt(receipt);
      return answer(status, status === 200 ? "" : { error: "refused" }, { "content-type": "text/plain" });
    });
  }
}

/** The chain: a block every BLOCK_MS, the authorizations and node records written in them. */
const BLOCK_MS = 5_000;

interface ChainTx {
  hash: string;
  messages: Record<string, string>[];
}

export class SimChain {
  private readonly blocks = new Map<number, ChainTx[]>();
  private readonly authorized = new Map<string, number>();
  private readonly nodes = new Map<string, { recipient: string; height: number }[]>();
  private readonly txs = new Map<string, { height: number; tx: ChainTx }>();

  constructor(
    private readonly kernel: Kernel,
    readonly genesis: number,
    private readonly faults: FaultPlan,
    private readonly namespace: string,
  ) {}

  /** The real head. */
  head(): number {
    return 1 + Math.floor((this.kernel.now - this.genesis) / BLOCK_MS);
  }

  /** The hashes of the transactions in block `height`. */
  txsAt(height: number): string[] {
    return (this.blocks.get(height) ?? []).map((tx) => tx.hash);
  }

  /** The payout's wallet broadcasts the authorization: the next block holds it; its hash is returned. */
  authorize(payout: string, operator: string): { height: number; txhash: string } {
    const height = this.head() + 1;
    const type = `/${this.namespace}.incentives.v1.MsgAuthorizeOperator`;
    const txhash = this.write(height, { "@type": type, operator, payout_recipient: payout });
    if (!this.authorized.has(`${payout}|${operator}`)) this.authorized.set(`${payout}|${operator}`, height);
    return { height, txhash };
  }

  /** The node's operator sets its payout recipient. */
  applyNode(operator: string, recipient: string): number {
    const height = this.head() + 1;
    this.write(height, { "@type": `/${this.namespace}.incentives.v1.MsgSetNodePayout`, operator, recipient });
    const records = this.nodes.get(operator) ?? [];
    records.push({ recipient, height });
    this.nodes.set(operator, records);
    return height;
  }

  /** A GET of a node: the answer, or "down" while the nodes fail. */
  serve(url: URL): Promise<Response> | "unreachable" {
    if (this.faults.nodesDown(this.kernel.now)) return "unreachable";
    return kernelIo(this.kernel, this.kernel.random.int(20, 300), () => this.answer(url));
  }

  private answer(url: URL): Response {
    const lag = this.faults.nodeLag(this.kernel.now);
    const height = Math.max(1, this.head() - (lag > 0 && this.kernel.random.chance(0.6) ? lag : 0));
    const at = { "grpc-metadata-x-cosmos-block-height": String(height) };
    const path = decodeURIComponent(url.pathname);
    const ns = `/${this.namespace}/incentives/v1/`;
    let m: RegExpExecArray | null;
    if (path === "/cosmos/base/tendermint/v1beta1/blocks/latest") return answer(200, this.block(height), at);
    if ((m = /^\/cosmos\/base\/tendermint\/v1beta1\/blocks\/(\d+)$/.exec(path)))
      return Number(m[1]) > height
        ? answer(400, { code: 3, message: "height too high" })
        : answer(200, this.block(+m[1]!));
    if ((m = /^\/cosmos\/tx\/v1beta1\/txs\/block\/(\d+)$/.exec(path))) {
      // While nodes lag, some do not serve GetBlockWithTxs: the follower falls back to the search.
      if (lag > 0 && this.kernel.random.chance(0.5)) return answer(501, { code: 12, message: "not implemented" });
      const txs = Number(m[1]) > height ? [] : (this.blocks.get(+m[1]!) ?? []);
      return answer(200, { txs: txs.map(decoded), pagination: { total: String(txs.length) } });
    }
    if (path === "/cosmos/tx/v1beta1/txs") {
      const wanted = Number(/tx\.height=(\d+)/.exec(url.searchParams.get("query") ?? "")?.[1]);
      // The transaction index may trail the head: the newest blocks' transactions are missing from the search.
      const trails = lag > 0 && wanted > this.head() - lag && this.kernel.random.chance(0.5);
      const txs = trails ? [] : (this.blocks.get(wanted) ?? []);
      return answer(200, {
        txs: txs.map(decoded),
        tx_responses: txs.map(() => ({ height: String(wanted) })),
        total: String(txs.length),
      });
    }
    if ((m = /^\/cosmos\/tx\/v1beta1\/txs\/([0-9A-F]{64})$/.exec(path))) {
      const found = this.txs.get(m[1]!);
      if (!found || found.height > height) return answer(404, { code: 5, message: "tx not found" });
      return answer(200, {
        tx: decoded(found.tx),
        tx_response: { txhash: found.tx.hash, code: 0, height: String(found.height) },
      });
    }
    if (path.startsWith(`${ns}operator_authorizations/`)) {
      const payout = path.slice(`${ns}operator_authorizations/`.length);
      const listed = [...this.authorized].filter(([k, h]) => k.startsWith(`${payout}|`) && h <= height);
      return answer(200, { authorizations: listed.map(([k]) => ({ operator: k.split("|")[1] })) }, at);
    }
    if (path.startsWith(`${ns}node/`)) {
      const operator = path.slice(`${ns}node/`.length);
      const records = (this.nodes.get(operator) ?? []).filter((r) => r.height <= height);
      if (records.length === 0) return answer(404, { code: 5, message: "node not found" }, at);
      return answer(200, { node: { operator, payout_recipient: records[records.length - 1]!.recipient } }, at);
    }
    return answer(404, { code: 5, message: `no route ${path}` });
  }

  private block(height: number) {
    const txs = this.blocks.get(height) ?? [];
    return { block: { header: { height: String(height) }, data: { txs: txs.map((t) => btoa(t.hash)) } } };
  }

  private write(height: number, message: Record<string, string>): string {
    const block = this.blocks.get(height) ?? [];
    const n = this.txs.size + 1;
    const hash = (n.toString(16).padStart(8, "0") + "C0FFEE".repeat(10)).slice(0, 64).toUpperCase();
    const tx = { hash, messages: [message] };
    block.push(tx);
    this.blocks.set(height, block);
    this.txs.set(hash, { height, tx });
    return hash;
  }
}

function decoded(tx: ChainTx) {
  return { body: { messages: tx.messages } };
}

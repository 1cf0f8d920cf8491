/**
 * The feed's dialler: which node of RPC_UPSTREAM_URLS the network's one upstream socket is on.
 * It dials from the first node on and redials after a drop (backing off while every node refuses);
 * on each watchdog round it gives up a silent socket, leaves a node that sends frames but no new
 * height (a node stuck or behind after a failover) for the next one, and, while on a node that is
 * not the first, asks the earlier ones their `status` and goes back to the first that is ahead.
 */
import { openUpstream, type Upstream, type UpstreamConfig } from "./upstream-socket";
import type { NewBlockValue } from "./block-events";
import { LAGGING_NODE_MS, UPSTREAM_SILENCE_MS } from "./limits";
import { log } from "../../log";

/** Pause before dialling again after a drop; doubled after each round every node refused, up to MAX_REDIAL_MS. */
const REDIAL_MS = 500;
const MAX_REDIAL_MS = 5_000;
/**
 * An earlier node is ahead once its `status` is this many heights past the last one sent: one height
 * is the race between a node's `status` and its socket's next frame, not a lead.
 */
const AHEAD_BY = 2;

/** What the dialler reports, and asks. */
export interface DiallerLinks {
  block(value: NewBlockValue): void;
  /** The socket is gone (dropped, silent, or left): what was told as the head no longer stands. */
  lost(): void;
  /** Whether anyone listens: nobody, and the dialler does not dial. */
  wanted(): boolean;
}

export class FeedDialler {
  private upstream: Upstream | null = null;
  private dialling: Promise<void> | null = null;
  private redialMs = REDIAL_MS;
  private lastFrameAt = 0;
  private lastNewHeightAt = 0;

  constructor(
    private readonly config: UpstreamConfig,
    private readonly links: DiallerLinks,
  ) {}

  /** The node the socket is on, if open. */
  get node(): string | null {
    return this.upstream?.url ?? null;
  }

  /** A new height went out: the node is moving. */
  progressed(): void {
    this.lastNewHeightAt = Date.now();
  }

  /** Opens the socket unless it is open, being opened, or nobody listens; retries until a node takes it. */
  dial(start = 0): Promise<void> {
    if (this.upstream || !this.links.wanted()) return Promise.resolve();
    this.dialling ??= this.open(start).finally(() => (this.dialling = null));
    return this.dialling;
  }

  /** Closes the socket (nobody listens). */
  close(): void {
    this.upstream?.close();
    this.upstream = null;
  }

  /**
   * The watchdog's round: a socket silent for UPSTREAM_SILENCE_MS is dialled again from the first node;
   * one that sent frames but no new height for LAGGING_NODE_MS is left for the next node; on a node
   * that is not the first, an earlier node at least AHEAD_BY heights past `latest` is taken back.
   */
  async watch(latest: number | null): Promise<void> {
    const upstream = this.upstream;
    const now = Date.now();
    if (upstream && now - this.lastFrameAt > UPSTREAM_SILENCE_MS) return this.leave("silent", 0);
    if (upstream && this.config.rpcUpstreamUrls.length > 1 && now - this.lastNewHeightAt > LAGGING_NODE_MS)
      return this.leave("no new height", upstream.index + 1);
    if (upstream && upstream.index > 0 && latest !== null)
      for (let index = 0; index < upstream.index; index++)
        if ((await this.heightOf(this.config.rpcUpstreamUrls[index]!)) >= latest + AHEAD_BY)
          return this.leave("behind", index);
    await this.dial();
  }

  private async leave(why: string, start: number): Promise<void> {
    log("warn", "live_upstream_left", { node: this.upstream?.url, why });
    this.close();
    this.links.lost();
    await this.dial(start % this.config.rpcUpstreamUrls.length);
  }

  /** A node's latest height from its `status`, 0 when it does not answer in time. */
  private async heightOf(base: string): Promise<number> {
    try {
      const headers = new Headers();
      if (this.config.upstreamAuthHeader) headers.set(...this.config.upstreamAuthHeader);
      const response = await fetch(`${base.replace(/\/+$/, "")}/status`, {
        headers,
        signal: AbortSignal.timeout(this.config.upstreamTimeoutMs),
      });
      const body = (await response.json()) as { result?: { sync_info?: { latest_block_height?: string } } };
      return Number(body.result?.sync_info?.latest_block_height ?? 0) || 0;
    } catch {
      return 0;
    }
  }

  private async open(start: number): Promise<void> {
    const upstream = await openUpstream(
      this.config,
      {
        block: (value) => this.links.block(value),
        frame: () => (this.lastFrameAt = Date.now()),
        closed: () => {
          if (this.upstream !== upstream) return;
          this.upstream = null;
          this.links.lost();
          setTimeout(() => void this.dial(), REDIAL_MS);
        },
      },
      start,
    ).catch(() => null);
    if (upstream && !this.links.wanted()) upstream.close();
    else if (upstream) {
      this.upstream = upstream;
      this.lastFrameAt = this.lastNewHeightAt = Date.now();
      this.redialMs = REDIAL_MS;
      return;
    }
    if (!this.links.wanted()) return;
    setTimeout(() => void this.dial(), this.redialMs);
    this.redialMs = Math.min(this.redialMs * 2, MAX_REDIAL_MS);
  }
}

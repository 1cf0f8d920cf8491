/**
 * The live feed's dialler: which node of RPC_UPSTREAM_URLS the feed's one socket is open to.
 * - It dials the nodes in configured order, from the first, until one takes the upgrade; after a
 *   round every node refused, it waits (doubling from REDIAL_MS up to MAX_REDIAL_MS) and tries again.
 * - A socket with no frame for UPSTREAM_SILENCE_MS is closed and dialled again (a node gone silent).
 * - A socket whose frames bring no new height for a few block times (LAGGING_MS: a node stuck or behind, whose frames
 *   keep the silence rule quiet), and any socket to a node other than the first, has the other nodes
 *   asked for their height every check: the first one in configured order that is past the last
 *   height published is opened, and the current socket closed only once it is (make before break),
 *   so the feed leaves a lagging node and comes back to the first one once it is ahead again.
 */
import type { Config } from "../../config";
import type { NewBlockValue } from "./block-events";
import { LAGGING_MS, UPSTREAM_SILENCE_MS } from "./limits";
import { nodeHeight, openUpstream, type Upstream } from "./upstream-socket";

/** Pause before dialling again after a drop; doubled after each round every node refused, up to MAX_REDIAL_MS. */
const REDIAL_MS = 500;
const MAX_REDIAL_MS = 5_000;

type DiallerConfig = Pick<Config, "rpcUpstreamUrls" | "upstreamAuthHeader" | "upstreamTimeoutMs">;

/** What the dialler reports to the feed. */
export interface DiallerLinks {
  block(value: NewBlockValue): void;
  /** The socket is gone (dropped, or closed as silent): the last height no longer stands for the head. */
  lost(): void;
  /** Whether anyone listens: the dialler opens nothing for nobody. */
  wanted(): boolean;
  /** The last height published, which a node must be past to be moved to. */
  lastHeight(): number | null;
}

export class FeedDialler {
  private upstream: Upstream | null = null;
  private dialling = false;
  private switching = false;
  private redialMs = REDIAL_MS;
  private lastFrameAt = 0;
  /** When the socket was opened, and when the last new height was published (0: none yet). */
  private openedAt = 0;
  private lastNewAt = 0;
  /** The network's block time as the published heights show it (an average weighted to the recent). */
  private blockMs: number | null = null;

  /** `settings`: read at each dial and check, so the nodes are the configuration's of the moment. */
  constructor(
    private readonly settings: () => DiallerConfig,
    private readonly links: DiallerLinks,
  ) {}

  private get config(): DiallerConfig {
    return this.settings();
  }

  /** The node the socket is open to, or null. */
  get url(): string | null {
    return this.upstream?.url ?? null;
  }

  /** The feed published a new height: the node is moving. */
  heightPublished(now = Date.now()): void {
    if (this.lastNewAt > 0) {
      const interval = now - this.lastNewAt;
      this.blockMs = this.blockMs === null ? interval : 0.8 * this.blockMs + 0.2 * interval;
    }
    this.lastNewAt = now;
  }

  /** How long a socket may bring no new height before the node counts as lagging: a few block times. */
  laggingAfterMs(): number {
    if (this.blockMs === null) return LAGGING_MS.unknownBlockTime;
    return Math.min(LAGGING_MS.max, Math.max(LAGGING_MS.min, LAGGING_MS.blocks * this.blockMs));
  }

  /** Opens the socket unless it is open, being opened, or nobody listens; retries until a node takes it. */
  async dial(): Promise<void> {
    if (this.upstream || this.dialling || !this.links.wanted()) return;
    this.dialling = true;
    try {
      for (const base of this.config.rpcUpstreamUrls) {
        this.upstream = await this.open(base);
        if (this.upstream) break;
      }
    } finally {
      this.dialling = false;
    }
    if (this.upstream) this.redialMs = REDIAL_MS;
    else {
      setTimeout(() => void this.dial(), this.redialMs);
      this.redialMs = Math.min(this.redialMs * 2, MAX_REDIAL_MS);
    }
  }

  /** Closes the socket (nobody listens). */
  close(): void {
    this.upstream?.close();
    this.upstream = null;
  }

  /** The watchdog: a silent socket is dialled again; a lagging one, or one off the first node, seeks a better one. */
  async check(now = Date.now()): Promise<void> {
    const upstream = this.upstream;
    if (upstream && now - this.lastFrameAt > UPSTREAM_SILENCE_MS) {
      this.close();
      this.links.lost();
    } else if (upstream) {
      const index = this.config.rpcUpstreamUrls.indexOf(upstream.url);
      const lagging = now - Math.max(this.lastNewAt, this.openedAt) > this.laggingAfterMs();
      if (index !== 0 || lagging) await this.moveToBetter(upstream, lagging);
    }
    await this.dial();
  }

  /** Opens the first other node, in configured order, that is past the last height published; then closes `from`. */
  private async moveToBetter(from: Upstream, lagging: boolean): Promise<void> {
    if (this.switching) return;
    this.switching = true;
    try {
      const last = this.links.lastHeight() ?? 0;
      const nodes = this.config.rpcUpstreamUrls;
      // Off the first node but moving, only the nodes before it are worth a move; a lagging node, any other.
      const candidates = lagging ? nodes.filter((n) => n !== from.url) : nodes.slice(0, nodes.indexOf(from.url));
      for (const base of candidates) {
        const height = await nodeHeight(base, this.config);
        if (height === null || height <= last) continue;
        const next = await this.open(base);
        if (!next) continue;
        if (this.upstream === from) {
          this.upstream = next;
          from.close();
        } else next.close();
        return;
      }
    } finally {
      this.switching = false;
    }
  }

  private async open(base: string): Promise<Upstream | null> {
    const upstream = await openUpstream(base, this.config, {
      block: (value) => {
        if (this.upstream === upstream) this.links.block(value);
      },
      frame: () => {
        if (this.upstream === upstream) this.lastFrameAt = Date.now();
      },
      closed: () => {
        if (this.upstream !== upstream) return;
        this.upstream = null;
        this.links.lost();
        setTimeout(() => void this.dial(), REDIAL_MS);
      },
    });
    if (upstream) this.lastFrameAt = this.openedAt = Date.now();
    return upstream;
  }
}

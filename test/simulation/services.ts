/**
 * What the objects talk to, simulated: D1 (the onboarding index: a list row per onboarding with
 * its version, and the feed of events in one order), the host's webhook receiver, and the chain
 * (blocks, heights, and nodes that may answer an older height or not at all). Each answers after
 * a seeded latency and obeys the fault plan in force at that moment.
 */
import type { OnboardingView } from "../../src/protocol/index";
import type { DeliveryAttempt, OutboxEvent } from "../../src/onboardings/state";
import { type Co, io, type Kernel } from "./kernel";
import type { FaultPlan } from "./faults";

export interface IndexRow {
  version: number;
  onboarding: OnboardingView;
}

export interface FeedEvent {
  seq: number;
  id: string;
  onboarding_id: string;
  type: string;
  /** Whether its delivery was given up, as the object last wrote it. */
  failed_at: string | null;
}

/** The index in D1: one transaction per write, a row that only moves forward, events inserted once. */
export class SimD1 {
  readonly rows = new Map<string, IndexRow>();
  readonly feed: FeedEvent[] = [];
  private readonly ids = new Set<string>();
  private seq = 0;
  refusals = 0;

  constructor(
    private readonly kernel: Kernel,
    private readonly faults: FaultPlan,
  ) {}

  /**
   * writeOnboardingRow: the new events (one already held takes the given `failed_at`) and the row (kept when its
   * version is not above the one held).
   */
  *write(row: {
    onboarding: OnboardingView;
    version: number;
    events: readonly (Pick<OutboxEvent, "id" | "type"> & { failed_at?: string | null })[];
  }): Co<void> {
    yield* io(this.kernel, this.kernel.random.int(5, 120), () => {
      this.refuseWhileDown();
      for (const event of row.events) {
        const failed_at = event.failed_at ?? null;
        if (this.ids.has(event.id)) {
          const held = this.feed.find((e) => e.id === event.id)!;
          held.failed_at = failed_at;
          continue;
        }
        this.ids.add(event.id);
        this.feed.push({
          seq: ++this.seq,
          id: event.id,
          onboarding_id: row.onboarding.id,
          type: event.type,
          failed_at,
        });
      }
      const held = this.rows.get(row.onboarding.id);
      if (!held || row.version > held.version)
        this.rows.set(row.onboarding.id, { version: row.version, onboarding: row.onboarding });
    });
  }

  /** deleteOnboardingRows. */
  *deleteRows(id: string): Co<void> {
    yield* io(this.kernel, this.kernel.random.int(5, 120), () => {
      this.refuseWhileDown();
      for (let i = this.feed.length - 1; i >= 0; i--) {
        if (this.feed[i]!.onboarding_id !== id) continue;
        this.ids.delete(this.feed[i]!.id);
        this.feed.splice(i, 1);
      }
      this.rows.delete(id);
    });
  }

  private refuseWhileDown(): void {
    if (this.faults.d1Refuses(this.kernel.now)) {
      this.refusals++;
      throw new Error("D1_ERROR: the database refused the write");
    }
  }
}

/** One receipt at the host's webhook endpoint. */
export interface Receipt {
  at: number;
  onboarding: string;
  eventId: string;
  status: number;
}

/** HOST_WEBHOOK_TIMEOUT_MS as deployed. */
const WEBHOOK_TIMEOUT_MS = 10_000;

/** The host's receiver: answers 2xx, or fails as the fault plan says at the attempt's start. */
export class SimReceiver {
  readonly receipts: Receipt[] = [];

  constructor(
    private readonly kernel: Kernel,
    private readonly faults: FaultPlan,
  ) {}

  /** One attempt (deliver() of src/onboardings/webhook.ts): never throws. */
  *attempt(onboarding: string, event: Pick<OutboxEvent, "id">): Co<DeliveryAttempt> {
    const started = this.kernel.now;
    const at = new Date(started).toISOString();
    const mode = this.faults.receiver(started, onboarding);
    const random = this.kernel.random;
    switch (mode) {
      case "hang":
        return yield* io(this.kernel, WEBHOOK_TIMEOUT_MS, () => ({
          at,
          error: `no answer within ${WEBHOOK_TIMEOUT_MS / 1000} s`,
          ms: WEBHOOK_TIMEOUT_MS,
        }));
      case "unreachable":
        return yield* io(this.kernel, random.int(1, 30), () => ({
          at,
          error: "unreachable (Network connection lost.)",
          ms: this.kernel.now - started,
        }));
      default: {
        const status = mode === "5xx" ? random.pick([500, 502, 503]) : mode === "refuse" ? 422 : 200;
        return yield* io(this.kernel, random.int(10, 300), () => {
          this.receipts.push({ at: this.kernel.now, onboarding, eventId: event.id, status });
          return { at, status, ms: this.kernel.now - started };
        });
      }
    }
  }
}

/** The chain: a block every BLOCK_MS, the authorizations and node records written in them. */
const BLOCK_MS = 5_000;

export class SimChain {
  private readonly blocks = new Map<number, string[]>();
  private readonly authorized = new Map<string, number>();
  private readonly nodes = new Map<string, { recipient: string; height: number }[]>();

  constructor(
    private readonly kernel: Kernel,
    private readonly genesis: number,
    private readonly faults: FaultPlan,
  ) {}

  /** The real head. */
  head(): number {
    return 1 + Math.floor((this.kernel.now - this.genesis) / BLOCK_MS);
  }

  /** The height a node answers at: the head, or an older one while a node lags. */
  answeringHeight(): number {
    const lag = this.faults.nodeLag(this.kernel.now);
    return Math.max(1, this.head() - (lag > 0 && this.kernel.random.chance(0.6) ? lag : 0));
  }

  /** While nodes lag, the newest blocks may be missing from a node's transaction index (the search fallback). */
  indexTrails(height: number): boolean {
    const lag = this.faults.nodeLag(this.kernel.now);
    return lag > 0 && height > this.head() - lag && this.kernel.random.chance(0.5);
  }

  /** The payout's wallet broadcasts the authorization: the next block holds it. */
  authorize(payout: string, operator: string): number {
    const height = this.head() + 1;
    this.write(height, [payout, operator]);
    if (!this.authorized.has(`${payout}|${operator}`)) this.authorized.set(`${payout}|${operator}`, height);
    return height;
  }

  /** The node's operator sets its payout recipient. */
  applyNode(operator: string, recipient: string): number {
    const height = this.head() + 1;
    this.write(height, [operator, recipient]);
    const records = this.nodes.get(operator) ?? [];
    records.push({ recipient, height });
    this.nodes.set(operator, records);
    return height;
  }

  listed(payout: string, operator: string, height: number): boolean {
    const at = this.authorized.get(`${payout}|${operator}`);
    return at !== undefined && at <= height;
  }

  payoutAt(operator: string, height: number): string | null {
    const records = (this.nodes.get(operator) ?? []).filter((r) => r.height <= height);
    return records.length === 0 ? null : records[records.length - 1]!.recipient;
  }

  /** Every string of block `height`'s messages; throws for a block the nodes do not have yet. */
  strings(height: number): string[] {
    if (height > this.head()) throw new Error(`block ${height} is not there yet`);
    return this.blocks.get(height) ?? [];
  }

  nodesDown(): boolean {
    return this.faults.nodesDown(this.kernel.now);
  }

  private write(height: number, strings: string[]): void {
    const block = this.blocks.get(height) ?? [];
    block.push(...strings);
    this.blocks.set(height, block);
  }
}

/**
 * UpstreamHealth: the one place where what every shield saw of the nodes (both faces) meets. Shields
 * report their attempts and take the merged view back: heights (a node's lag), benches (a node's
 * Retry-After) and last outcomes travel, latency stays each isolate's own (upstream-board.ts).
 * `/api/health` and `/api/gateway` read it. It needs no setting: it
 * answers for every upstream it has heard of, and each reader takes the ones it is configured
 * with. Memory only: health is recent by nature, and an evicted object learns again from the
 * next reports.
 */
import { DurableObject } from "cloudflare:workers";
import { UpstreamBoard, type UpstreamState } from "../../src/gateway/upstream-board";

export class UpstreamHealth extends DurableObject<Env> {
  private readonly board = new UpstreamBoard();

  /** Merges `seen` (later observations win) and answers the merged state of every upstream heard of. */
  report(seen: UpstreamState[]): UpstreamState[] {
    this.board.merge(seen);
    return this.board.everyKnown();
  }
}

/**
 * Heights never go back, across keys, and the rule is bounded (docs/GATEWAY.md, "Heights"). The
 * isolate keeps the highest block height it has served as the latest state, on either face (REST's
 * `x-cosmos-block-height`, the RPC face's latest-height answers), and a floor that is that height
 * while some node reaches it. A client that read height h (CosmJS's `getHeight()`) and then asks
 * another key must not get an answer from a node still below h: an answer below the floor is asked
 * again of the next node (upstreams.ts), a kept entry below it is not served (serve.ts,
 * memory-answer.ts), and with no node at or above it a stale entry at or above it stands in, else
 * the error. A pinned read (a past height, a range up to a named height, a transaction, a search)
 * neither raises the mark nor is held to it. Bounded:
 *
 * - when no answer has reached the floor for 60 s, the floor moves down to the best height answered
 *   since: a latest read is served from the best node, with `X-Edge-Behind: <blocks below the
 *   highest height served>` (a lagging network is not a dark gateway);
 * - when that best height is more than 1,000 blocks below the highest served (a re-genesis, or a
 *   mark a bogus answer raised), the mark itself moves down to it;
 * - while the mark was served within the last minute, a height more than 1,000 blocks above it (the
 *   ceiling) is no answer: not from a node (unless a second node reaches it, upstreams.ts), not from
 *   a kept entry.
 */
import { badGateway } from "../errors";

/** Blocks past the mark (and past every other node) a height may be and still be believed. */
export const BOGUS_BLOCKS = 1000;
/** How long no answer may reach the floor before the floor moves down to the best answer since. */
const LAG_GRACE_MS = 60_000;
/** How long the mark vouches for a ceiling after it was last served. */
const CEILING_MEMORY_MS = 60_000;

let highest = 0;
let floor = 0;
let servedAt = 0;
/** Since when every latest-state answer has been below the floor (null: one reached it since). */
let belowSince: number | null = null;
/** The best height answered below the floor since `belowSince`. */
let bestBelow = 0;

/** The highest latest-state height this isolate has served (0 before the first). */
export const servedHeight = (): number => highest;

/** The floor a latest read starting at `now` is held to, after the 60 s rule is applied. */
function floorNow(now = Date.now()): number {
  if (belowSince !== null && now - belowSince >= LAG_GRACE_MS && bestBelow > 0) {
    floor = bestBelow;
    if (highest - bestBelow > BOGUS_BLOCKS) {
      highest = bestBelow;
      servedAt = now;
    }
    belowSince = null;
    bestBelow = 0;
  }
  return floor;
}

/** The height above which nothing is believed now (undefined: no recent mark vouches for one). */
function ceilingNow(now = Date.now()): number | undefined {
  return highest > 0 && now - servedAt < CEILING_MEMORY_MS ? highest + BOGUS_BLOCKS : undefined;
}

/** The bounds a latest read starting at `now` is held to (`UpstreamQuery.floor` and `.ceiling`). */
export const boundsNow = (now = Date.now()) => ({ floor: floorNow(now), ceiling: ceilingNow(now) });

/** Notes a latest-state answer's height as obtained (not yet served): below the floor, it counts toward the 60 s. */
export function noteAnswered(height: number | null, now = Date.now()): void {
  if (height === null) return;
  if (height >= floor) {
    belowSince = null;
    bestBelow = 0;
    return;
  }
  belowSince ??= now;
  bestBelow = Math.max(bestBelow, height);
}

/** Raises the mark to `height` (a latest-state answer's that was served; null for one that names none). */
export function markServed(height: number | null, now = Date.now()): void {
  if (height === null) return;
  if (height > highest) highest = height;
  if (height >= highest) servedAt = now;
  if (height > floor) floor = Math.min(height, highest);
  noteAnswered(height, now);
}

/** Blocks `height` is below the highest height served (0 when it is not): the `X-Edge-Behind` of its answer. */
export const blocksBehind = (height: number | null): number =>
  height !== null && height < highest ? highest - height : 0;

/** Whether an answer at `height` is below `floor`, the floor when its request began. */
export const belowFloor = (height: number | null, floor: number): boolean => height !== null && height < floor;

/** Whether an answer at `height` may be served within `bounds`: not below its floor, not above its ceiling. */
export function withinBounds(height: number | null, bounds: { floor?: number; ceiling?: number }): boolean {
  if (height === null) return true;
  return height >= (bounds.floor ?? 0) && (bounds.ceiling === undefined || height <= bounds.ceiling);
}

/** The failure when every node answered below `floor` (a 502, which a stale entry may stand in for). */
export const everyNodeBehind = (floor: number, detail: string, best: number | null = null) =>
  badGateway("UPSTREAM_BEHIND", `No upstream answered at or above height ${floor}, already served here: ${detail}`, {
    served_height: String(floor),
    ...(best === null ? {} : { best_height: String(best) }),
  });

/** Forgets the mark (tests start from nothing). */
export function resetServedHeight(): void {
  highest = 0;
  floor = 0;
  servedAt = 0;
  belowSince = null;
  bestBelow = 0;
}

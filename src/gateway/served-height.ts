/**
 * Heights never go back, across keys: the highest block height this isolate has served as the
 * latest state, on either face (REST's `x-cosmos-block-height`, the RPC face's latest-height
 * answers). A client that read height h (CosmJS's `getHeight()`) and then asks another key must
 * not get an answer from a node that is still below h. An answer below the mark is asked again of
 * the next node (upstreams.ts); a kept entry below it is not served (serve.ts, memory-answer.ts);
 * with no node at or above it, a stale entry at or above it stands in, else the error. A pinned
 * read (a past height, a range up to a named height, a transaction, a search) neither raises the
 * mark nor is held to it.
 */
import { badGateway } from "../errors";

let highest = 0;

/** The highest latest-state height this isolate has served (0 before the first). */
export const servedHeight = (): number => highest;

/** Raises the mark to `height` (a latest-state answer's; null for one that names none). */
export function markServed(height: number | null): void {
  if (height !== null && height > highest) highest = height;
}

/** Whether an answer at `height` is below `floor`, the mark when its request began. */
export const belowFloor = (height: number | null, floor: number): boolean => height !== null && height < floor;

/** The failure when every node answered below `floor` (a 502, which a stale entry may stand in for). */
export const everyNodeBehind = (floor: number, detail: string) =>
  badGateway("UPSTREAM_BEHIND", `No upstream answered at or above height ${floor}, already served here: ${detail}`, {
    served_height: String(floor),
  });

/** Forgets the mark (tests start from nothing). */
export function resetServedHeight(): void {
  highest = 0;
}

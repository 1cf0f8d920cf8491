/**
 * Block-height monotonicity, the one rule of every tier that keeps entries: nodes answer
 * at different heights, and an answer at a lower height never replaces a higher one.
 */
import type { CacheEntry } from "./cache-entry";

/**
 * The entry to keep when `incoming` arrives while `current` is held. Heights compare only when
 * both carry one (a node behind a proxy that strips the header must not freeze an entry). A
 * lower incoming answer leaves `current` in place, confirmed as the newest known as of when
 * `incoming` was fetched (`kept`), unless its height is above `ceiling` (served-height.ts): then it goes.
 */
export function newest(
  current: CacheEntry | null,
  incoming: CacheEntry,
  ceiling?: number,
): { entry: CacheEntry; kept: boolean } {
  // A kept entry above the ceiling (a bogus height, or one from before a re-genesis) is dropped, not kept.
  const believed = current?.height != null && (ceiling === undefined || current.height <= ceiling);
  if (believed && incoming.height !== null && incoming.height < current!.height!) {
    return { entry: { ...current, storedAt: Math.max(current.storedAt, incoming.storedAt) }, kept: true };
  }
  return { entry: incoming, kept: false };
}

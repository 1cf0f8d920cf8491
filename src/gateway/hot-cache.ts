/**
 * Fresh entries kept in isolate memory in front of the Cache API, so a hit on a hot key costs no
 * I/O at all. Only fresh entries are served from here; anything older goes through the Cache API
 * (shared by the data center) and its SWR and stale-if-error rules. Bounded by entries and bytes,
 * oldest stored first out.
 */
import type { CacheEntry } from "./cache-entry";
import { isFresh } from "./freshness";

/** Most entries kept. */
export const HOT_MAX_ENTRIES = 1000;
/** Most body characters kept in total (about as many bytes for JSON). */
export const HOT_MAX_CHARS = 8 * 1024 * 1024;

const entries = new Map<string, CacheEntry>();
let chars = 0;

/** The entry for `key` if it is still fresh at `now`, else null. */
export function hotFresh(key: string, now: number): CacheEntry | null {
  const entry = entries.get(key);
  return entry && isFresh(entry, now) ? entry : null;
}

/** Keeps `entry` for `key`, replacing any older one and evicting the oldest beyond the bounds. */
export function hotPut(key: string, entry: CacheEntry): void {
  if (entry.body.length > HOT_MAX_CHARS / 8) return; // one huge entry must not flush everything else
  forget(key);
  entries.set(key, entry);
  chars += entry.body.length;
  for (const oldest of entries.keys()) {
    if (entries.size <= HOT_MAX_ENTRIES && chars <= HOT_MAX_CHARS) break;
    forget(oldest);
  }
}

function forget(key: string): void {
  const entry = entries.get(key);
  if (!entry) return;
  chars -= entry.body.length;
  entries.delete(key);
}

/** Empties the hot cache (tests start from nothing). */
export function resetHotCache(): void {
  entries.clear();
  chars = 0;
}

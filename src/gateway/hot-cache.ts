/**
 * Fresh entries kept in isolate memory in front of the Cache API, so a hit on a hot key costs no
 * I/O at all. Only fresh entries are served from here; anything older goes through the Cache API
 * (shared by the data center) and its SWR and stale-if-error rules. Bounded by entries and bytes,
 * oldest stored first out.
 */
import type { CacheEntry } from "./cache-entry";
import { isFresh } from "./freshness";

/** Most entries kept. */
const HOT_MAX_ENTRIES = 1000;
/** Most body characters kept in total (about as many bytes for JSON). */
const HOT_MAX_CHARS = 8 * 1024 * 1024;

/** A kept entry and the route pattern of the requests it answers (for the access log). */
interface Hot {
  entry: CacheEntry;
  route: string;
}

const entries = new Map<string, Hot>();
let chars = 0;

/** The entry for `key` (with its route) if it is still fresh at `now`, else null. */
export function hotHit(key: string, now: number): Hot | null {
  const hot = entries.get(key);
  return hot && isFresh(hot.entry, now) ? hot : null;
}

/** The entry for `key` if it is still fresh at `now`, else null. */
export function hotFresh(key: string, now: number): CacheEntry | null {
  return hotHit(key, now)?.entry ?? null;
}

/** Keeps `entry` for `key` (asked by `route`), replacing any older one and evicting the oldest beyond the bounds. */
export function hotPut(key: string, entry: CacheEntry, route = ""): void {
  if (entry.body.length > HOT_MAX_CHARS / 8) return; // one huge entry must not flush everything else
  forget(key);
  entries.set(key, { entry, route });
  chars += entry.body.length;
  for (const oldest of entries.keys()) {
    if (entries.size <= HOT_MAX_ENTRIES && chars <= HOT_MAX_CHARS) break;
    forget(oldest);
  }
}

function forget(key: string): void {
  const hot = entries.get(key);
  if (!hot) return;
  chars -= hot.entry.body.length;
  entries.delete(key);
}

/** Empties the hot cache (tests start from nothing). */
export function resetHotCache(): void {
  entries.clear();
  chars = 0;
}

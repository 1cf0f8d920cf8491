/**
 * Fresh answers kept in isolate memory in front of the Cache API, so a hit on a hot key costs no
 * I/O at all. Only fresh entries are served from here; anything older goes through the Cache API
 * (shared by the data center) and its SWR and stale-if-error rules. Bounded by entries and bytes,
 * oldest stored first out. An entry also keeps the headers of the last full answer the gateway
 * gave from it, so a later hit replays them instead of building them again (`hot-path.ts`).
 */
import type { CachedAnswer } from "./cache-entry";

/** Most entries kept. */
export const HOT_MAX_ENTRIES = 1000;
/** Most body characters kept in total (about as many bytes for JSON). */
export const HOT_MAX_CHARS = 8 * 1024 * 1024;

/** Headers that depend on the moment of the answer, recomputed on every replay. */
const MOMENT_HEADERS = ["age", "cache-control"];

export interface HotEntry {
  answer: CachedAnswer;
  /** The matched route pattern, for the access log of a replayed hit. */
  route: string;
  /**
   * Every header of the last full answer from `answer` except the moment's; null until one was
   * given. Kept as a Headers object: copying one costs a fraction of building one from strings.
   */
  headers: Headers | null;
}

const entries = new Map<string, HotEntry>();
let chars = 0;

const isFresh = (answer: CachedAnswer, now: number) => now - answer.storedAt < answer.ttl * 1000;

/** The answer for `key` if it is still fresh at `now`, else null. */
export function hotFresh(key: string, now: number): CachedAnswer | null {
  const entry = entries.get(key);
  return entry && isFresh(entry.answer, now) ? entry.answer : null;
}

/** The entry for `key` when it is fresh at `now` and has headers to replay, else null. */
export function hotReplayable(key: string, now: number): HotEntry | null {
  const entry = entries.get(key);
  return entry?.headers && isFresh(entry.answer, now) ? entry : null;
}

/** Keeps `answer` for `key`, replacing any older one and evicting the oldest beyond the bounds. */
export function hotPut(key: string, answer: CachedAnswer, route: string): void {
  if (answer.body.length > HOT_MAX_CHARS / 8) return; // one huge answer must not flush everything else
  forget(key);
  entries.set(key, { answer, route, headers: null });
  chars += answer.body.length;
  for (const oldest of entries.keys()) {
    if (entries.size <= HOT_MAX_ENTRIES && chars <= HOT_MAX_CHARS) break;
    forget(oldest);
  }
}

/** Records `headers`, the full answer just given from `answer`, if `answer` is still the entry of `key`. */
export function keepHeaders(key: string, answer: CachedAnswer, headers: Headers): void {
  const entry = entries.get(key);
  if (entry?.answer !== answer || entry.headers) return;
  entry.headers = new Headers(headers);
  for (const name of MOMENT_HEADERS) entry.headers.delete(name);
}

function forget(key: string): void {
  const entry = entries.get(key);
  if (!entry) return;
  chars -= entry.answer.body.length;
  entries.delete(key);
}

/** Number of entries and characters held (for tests and health). */
export function hotSize(): { entries: number; chars: number } {
  return { entries: entries.size, chars };
}

/** Empties the hot cache (tests start from nothing). */
export function resetHotCache(): void {
  entries.clear();
  chars = 0;
}

/**
 * A shield's durable copy of its entry, so the height rule and stale-if-error outlive the
 * object's eviction, and the alarm that deletes it once nobody could be served it any more.
 */
import type { CacheEntry } from "../cache-entry";

const KEPT = "kept";
/** A cache entry may be lost with the machine; the reply need not wait for the write to be durable. */
const UNCONFIRMED = { allowUnconfirmed: true } as const;

interface Kept {
  entry: CacheEntry;
  /** Epoch ms after which no window (TTL, SWR, stale-if-error) can serve the entry. */
  keepUntil: number;
}

export class ShieldStore {
  private alarmAt: number | null = null;

  constructor(private readonly storage: DurableObjectStorage) {}

  /** The entry kept, or null; run once before the object takes requests. */
  async load(): Promise<CacheEntry | null> {
    this.alarmAt = await this.storage.getAlarm();
    return (await this.storage.get<Kept>(KEPT))?.entry ?? null;
  }

  async save(entry: CacheEntry, keepSeconds: number): Promise<void> {
    const keepUntil = entry.storedAt + keepSeconds * 1000;
    await this.storage.put(KEPT, { entry, keepUntil } satisfies Kept, UNCONFIRMED);
    // One alarm at a time: it looks again at the newest keepUntil when it rings.
    if (this.alarmAt === null) await this.schedule(keepUntil);
  }

  /** Deletes everything once the kept entry's time is over (true), else rings again then. */
  async expire(now: number): Promise<boolean> {
    this.alarmAt = null;
    const kept = await this.storage.get<Kept>(KEPT);
    if (kept && now < kept.keepUntil) {
      await this.schedule(kept.keepUntil);
      return false;
    }
    await this.storage.deleteAll();
    return true;
  }

  private async schedule(at: number): Promise<void> {
    this.alarmAt = at;
    await this.storage.setAlarm(at, UNCONFIRMED);
  }
}

/**
 * One onboarding's rows in the index, kept in step by its Durable Object: after every change the
 * host can see (its view, a new event) the newest state is written, one write at a time. Until a
 * write lands, the object's alarm is due at `retryAt` (set before the write begins, so an eviction
 * in the middle of it is retried too), later after each failure. The rows go when the onboarding
 * does; a deletion still owed is kept in storage until it lands.
 */
import { log } from "../log";
import type { OnboardingView } from "../protocol/index";
import { deleteOnboardingRows, writeOnboardingRow } from "./index-store";
import type { OnboardingRecord, OnboardingState } from "./state";

/** The storage key of a deletion of rows still owed once the onboarding's own state is gone. */
const ERASE_KEY = "index_erase";

/** Waits before the next write after `failures` failed ones in a row: 5 s, doubling, at most 5 minutes. */
export function indexRetryDelayMs(failures: number): number {
  return Math.min(5_000 * 2 ** Math.max(0, failures - 1), 5 * 60_000);
}

export class IndexSync {
  /** What the index is known to show: the record and how many events (null: not known, as after a restart). */
  private landed: { record: OnboardingRecord; events: number } | null = null;
  /** The newest state not yet written. */
  private owed: OnboardingState | null = null;
  /** The onboarding whose rows are to be deleted. */
  private erasing: string | null = null;
  private id: string | null = null;
  private writing: Promise<void> | null = null;
  private failures = 0;
  /** When the object's alarm must wake it for the index; null while the index owes nothing. */
  retryAt: number | null = null;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly db: D1Database,
    private readonly present: (record: OnboardingRecord) => OnboardingView,
    /** Called when `retryAt` changes: the object sets its alarm. */
    private readonly reschedule: () => void,
  ) {}

  /** The state the object loaded, and any deletion still owed (in its blockConcurrencyWhile). */
  async load(state: OnboardingState | null): Promise<void> {
    this.id = state?.record.id ?? null;
    this.erasing = (await this.storage.get<string>(ERASE_KEY)) ?? null;
  }

  /** The state changed: written unless the index already shows all of it the host can see. */
  changed(state: OnboardingState): void {
    this.id = state.record.id;
    const landed = this.landed;
    if (landed?.record === state.record && landed.events === state.events.length) return;
    this.owed = state;
    this.start();
  }

  /** The onboarding was deleted (after its storage): its rows go too. */
  erased(): void {
    if (this.id === null) return;
    this.owed = null;
    this.erasing = this.id;
    void this.storage.put(ERASE_KEY, this.id);
    this.start();
  }

  /** Writes what is owed (the alarm's part), and resolves once no write is under way. */
  async flush(): Promise<void> {
    this.start();
    while (this.writing) await this.writing;
  }

  private start(): void {
    if (this.writing || (this.owed === null && this.erasing === null)) return;
    this.retryAt = Date.now() + indexRetryDelayMs(this.failures + 1);
    this.reschedule();
    this.writing = this.attempt().finally(() => {
      this.writing = null;
      if (this.failures > 0) return;
      if (this.owed || this.erasing) this.start();
      else {
        this.retryAt = null;
        this.reschedule();
      }
    });
  }

  private async attempt(): Promise<void> {
    const { owed: state, erasing } = this;
    try {
      if (erasing !== null) {
        await deleteOnboardingRows(this.db, erasing);
        if (this.erasing === erasing) this.erasing = null;
        void this.storage.delete(ERASE_KEY);
      } else if (state !== null) {
        const known = this.landed;
        // Events already indexed keep their rows; after a restart every event is offered again and the index keeps its
        // own.
        const events = state.events.slice(known ? known.events : 0);
        await writeOnboardingRow(this.db, { onboarding: this.present(state.record), version: state.version, events });
        this.landed = { record: state.record, events: state.events.length };
        if (this.owed === state) this.owed = null;
      }
      this.failures = 0;
    } catch (err) {
      this.failures++;
      log("warn", "index_write_failed", {
        onboarding: erasing ?? state?.record.id,
        failures: this.failures,
        retry_at: new Date(this.retryAt ?? 0).toISOString(),
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
}

/**
 * D1 for the world: the REAL SQL of src/onboardings/index-store.ts run on SQLite, synchronously,
 * in the storage of a SQLite-backed Durable Object the sweep runs inside (`ctx.storage.sql`; a
 * batch is one `transactionSync`). The kernel decides WHEN each statement or batch lands: after a
 * seeded latency (some longer than the index write's 5 s lease while D1 is slow) or refused while
 * D1 refuses writes, so two writes of one onboarding can overlap and land out of order.
 */
import type { FaultPlan } from "./faults";
import type { Kernel } from "./kernel";
import { kernelIo } from "./platform";

/** The migrations as the suite's binding carries them (readD1Migrations). */
export interface Migration {
  name: string;
  queries: string[];
}

type Row = Record<string, SqlStorageValue>;

interface Result {
  results: Row[];
  success: true;
  meta: { changes: number; rows_read: number; rows_written: number };
}

/** A prepared statement with its values bound. */
class Statement {
  constructor(
    private readonly db: SimD1,
    readonly query: string,
    readonly values: readonly unknown[],
  ) {}

  bind(...values: unknown[]): Statement {
    return new Statement(this.db, this.query, values);
  }

  /** Runs now, on the SQLite under the world. */
  exec(): Result {
    const cursor = this.db.sql.exec(this.query, ...(this.values as SqlStorageValue[]));
    const results = cursor.toArray() as Row[];
    return {
      results,
      success: true,
      meta: { changes: cursor.rowsWritten, rows_read: cursor.rowsRead, rows_written: cursor.rowsWritten },
    };
  }

  run(): Promise<Result> {
    return this.db.land(() => this.exec());
  }

  all(): Promise<Result> {
    return this.db.land(() => this.exec());
  }

  async first(column?: string): Promise<unknown> {
    const { results } = await this.all();
    const row = results[0];
    if (row === undefined) return null;
    return column === undefined ? row : row[column];
  }

  async raw(): Promise<unknown[][]> {
    const { results } = await this.all();
    return results.map((row) => Object.values(row));
  }
}

/** The fake D1Database: prepare/bind/run/all/first/raw/batch, as index-store.ts uses them. */
export class SimD1 {
  /** Statements and batches D1 refused (a fault window). */
  refusals = 0;
  /** Writes that landed after a later-issued one of the same world (out of order). */
  landed = 0;
  /** When each slow statement or batch was in flight (a round of work waits for it). */
  readonly slowFlights: { from: number; to: number }[] = [];

  constructor(
    readonly sql: SqlStorage,
    private readonly transaction: <T>(run: () => T) => T,
    private readonly kernel: Kernel,
    private readonly faults: FaultPlan,
  ) {}

  /** Drops every table, then applies the migrations in order (each seed starts from an empty index). */
  reset(migrations: readonly Migration[]): void {
    const objects = this.sql
      .exec("SELECT type, name FROM sqlite_master WHERE type IN ('table', 'trigger') AND name NOT LIKE 'sqlite_%'")
      .toArray() as { type: string; name: string }[];
    for (const { type, name } of objects)
      if (!name.startsWith("_cf_")) this.sql.exec(`DROP ${type === "table" ? "TABLE" : "TRIGGER"} IF EXISTS "${name}"`);
    for (const migration of migrations) for (const query of migration.queries) this.sql.exec(query);
  }

  prepare(query: string): Statement {
    return new Statement(this, query, []);
  }

  /** Every statement in one transaction, all or nothing. */
  batch(statements: readonly Statement[]): Promise<Result[]> {
    return this.land(() => {
      const results = this.transaction(() => statements.map((s) => s.exec()));
      // The onboarding a write of index-store.ts concerns is the first value of its last statement.
      const subject = statements[statements.length - 1]?.values[0];
      if (typeof subject === "string") this.onLanded(subject);
      return results;
    });
  }

  /** Told of each batch that landed, with the onboarding it wrote (the check that the index never moves back). */
  onLanded: (onboarding: string) => void = () => {};

  /** Runs `work` when the kernel lands it: a latency (long while D1 is slow), or a refusal. */
  land<T>(work: () => T): Promise<T> {
    const random = this.kernel.random;
    const slow = this.faults.d1Slow(this.kernel.now) && random.chance(0.5);
    const ms = slow ? random.int(3_000, 12_000) : random.int(5, 120);
    if (slow) this.slowFlights.push({ from: this.kernel.now, to: this.kernel.now + ms });
    return kernelIo(this.kernel, ms, () => {
      if (this.faults.d1Refuses(this.kernel.now)) {
        this.refusals++;
        throw new Error("D1_ERROR: the database refused the write (simulated outage)");
      }
      return work();
    });
  }

  /** Whether a slow statement was in flight at some time in [from, to]. */
  slowDuring(from: number, to: number): boolean {
    return this.slowFlights.some((f) => f.from <= to && f.to >= from);
  }

  /** Reads the index now, outside the world's time (the invariants' view). */
  query<T = Row>(query: string, ...values: SqlStorageValue[]): T[] {
    return this.sql.exec(query, ...values).toArray() as T[];
  }
}

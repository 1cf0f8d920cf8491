/**
 * The shield of one key: the newest entry any upstream gave for it, and at most one upstream
 * round at a time for every caller anywhere. Serves its entry by the rule every tier applies
 * (freshness.ts): fresh at once, within the SWR window at once while one background round
 * replaces it, within the stale-if-error window when every upstream fails. An answer at a lower
 * block height never replaces the entry it holds, and an asker that already served a higher height
 * (`query.floor`, served-height.ts) is not given the entry: the round asks the nodes for one at or above it.
 */
import type { ApiError, ErrorSpec } from "../../errors";
import { entryOf, type CacheEntry } from "../cache-entry";
import { freshness, keepSeconds, servesOnError, type StaleWindows } from "../freshness";
import { newest } from "../height-rule";
import { withinBounds } from "../served-height";
import { noUpstreamAnswered, type UpstreamAnswer } from "../upstreams";
import type { ShieldAsk, ShieldOutcome } from "./protocol";

/** What the shield needs from its host (the Durable Object, or a test). */
export interface ShieldHost {
  /** One upstream round for `ask`; throws the 502/504 ApiError when no upstream gave an answer. */
  upstream(ask: ShieldAsk): Promise<UpstreamAnswer>;
  /** Keeps `entry` durably; `keepSeconds` past its storage it may be forgotten. */
  save(entry: CacheEntry, keepSeconds: number): Promise<void>;
  /** Lets work finish after the reply has gone. */
  background(work: Promise<unknown>): void;
  now(): number;
}

interface Round {
  entry: CacheEntry;
  kept: boolean;
}

export class ShieldCore {
  private inflight: Promise<Round> | null = null;

  constructor(
    private held: CacheEntry | null,
    private readonly host: ShieldHost,
    private readonly windows: StaleWindows,
  ) {}

  /** Drops the entry (its keep time is over). */
  forget(): void {
    this.held = null;
  }

  /**
   * The outcome when it needs no upstream round to wait for, else null. A STALE entry starts one in the background. An
   * entry below the height the asking isolate already served (`ask.query.floor`) counts as none.
   */
  outcomeNow(ask: ShieldAsk): ShieldOutcome | null {
    const entry = this.servable(ask);
    if (!entry) return null;
    const state = freshness(entry, this.host.now(), this.windows);
    if (state === "fresh") return { ok: true, entry, status: "HIT" };
    if (state === "stale" && ask.mode === "miss") {
      if (!this.inflight) this.host.background(this.round(ask).catch(() => undefined));
      return { ok: true, entry, status: "STALE" };
    }
    return null;
  }

  /** The outcome, waiting for the upstream round (shared with every concurrent caller) when needed. */
  async outcome(ask: ShieldAsk): Promise<ShieldOutcome> {
    const now = this.outcomeNow(ask);
    if (now) return now;
    try {
      const { entry, kept } = await this.round(ask);
      return { ok: true, entry, status: kept ? "REVALIDATED" : "MISS" };
    } catch (err) {
      if (!noUpstreamAnswered(err)) throw err;
      const entry = this.servable(ask);
      if (entry && servesOnError(entry, this.host.now(), this.windows))
        return { ok: true, entry, status: "STALE-IF-ERROR" };
      return { ok: false, error: specOf(err) };
    }
  }

  /** The entry held, unless it is below the height the asker already served. */
  private servable(ask: ShieldAsk): CacheEntry | null {
    const entry = this.held;
    return entry && withinBounds(entry.height, ask.query) ? entry : null;
  }

  /** The one upstream round in flight, started by `ask` when none is. */
  private round(ask: ShieldAsk): Promise<Round> {
    this.inflight ??= this.fetchAndKeep(ask).finally(() => {
      this.inflight = null;
    });
    return this.inflight;
  }

  private async fetchAndKeep(ask: ShieldAsk): Promise<Round> {
    const answer = await this.host.upstream(ask);
    const fresh = await entryOf(answer, ask.ttls, this.host.now());
    const { entry, kept } = newest(this.held, fresh, ask.query.ceiling);
    this.held = entry;
    await this.host.save(entry, keepSeconds(entry.ttl, this.windows));
    return { entry, kept };
  }
}

/** The plain-data form of an upstream failure, to cross the RPC boundary. */
function specOf(err: ApiError): ErrorSpec {
  return { status: err.status, code: err.code, reason: err.reason, message: err.message, metadata: err.metadata };
}

/**
 * The shield of one key: the newest answer any upstream gave for it, and at most one upstream
 * round at a time for every caller anywhere. Serves fresh answers at once, stale ones within the
 * SWR window while one background round replaces them, and within the stale-if-error window when
 * every upstream fails. An answer at a lower block height never replaces the one it holds.
 */
import { ApiError, type ErrorSpec } from "../../errors";
import { ageSeconds, entryOf, type CachedAnswer } from "../cache-entry";
import { newest } from "../height-rule";
import type { UpstreamAnswer } from "../upstreams";
import type { ShieldAsk, ShieldOutcome } from "./protocol";

/** What the shield needs from its host (the Durable Object, or a test). */
export interface ShieldHost {
  /** One upstream round for `ask`; throws the 502/504 ApiError when no upstream gave an answer. */
  upstream(ask: ShieldAsk): Promise<UpstreamAnswer>;
  /** Keeps `entry` durably; `keepSeconds` past its storage it may be forgotten. */
  save(entry: CachedAnswer, keepSeconds: number): Promise<void>;
  /** Lets work finish after the reply has gone. */
  background(work: Promise<unknown>): void;
  now(): number;
}

interface Round {
  entry: CachedAnswer;
  kept: boolean;
}

export class ShieldCore {
  private inflight: Promise<Round> | null = null;

  constructor(
    private held: CachedAnswer | null,
    private readonly host: ShieldHost,
  ) {}

  /** The answer held now (for tests and the Durable Object's clean-up). */
  get entry(): CachedAnswer | null {
    return this.held;
  }

  /** Drops the answer (its keep time is over). */
  forget(): void {
    this.held = null;
  }

  /** The outcome when it needs no upstream round to wait for, else null. A STALE answer starts one in the background. */
  ready(ask: ShieldAsk): ShieldOutcome | null {
    const entry = this.held;
    if (!entry) return null;
    const age = ageSeconds(entry, this.host.now());
    if (age < entry.ttl) return { ok: true, entry, status: "HIT" };
    if (ask.mode === "miss" && age < entry.ttl + ask.settings.cacheSwrSeconds) {
      if (!this.inflight) this.host.background(this.round(ask).catch(() => undefined));
      return { ok: true, entry, status: "STALE" };
    }
    return null;
  }

  /** The outcome, waiting for the upstream round (shared with every concurrent caller) when needed. */
  async answer(ask: ShieldAsk): Promise<ShieldOutcome> {
    const now = this.ready(ask);
    if (now) return now;
    try {
      const { entry, kept } = await this.round(ask);
      return { ok: true, entry, status: kept ? "REVALIDATED" : "MISS" };
    } catch (err) {
      if (!(err instanceof ApiError && (err.status === 502 || err.status === 504))) throw err;
      const entry = this.held;
      if (entry && ageSeconds(entry, this.host.now()) < entry.ttl + ask.settings.cacheStaleIfErrorSeconds) {
        return { ok: true, entry, status: "STALE-IF-ERROR" };
      }
      return { ok: false, error: specOf(err) };
    }
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
    const { entry, kept } = newest(this.held, fresh);
    this.held = entry;
    await this.host.save(entry, entry.ttl + Math.max(ask.settings.cacheSwrSeconds, ask.settings.cacheStaleIfErrorSeconds));
    return { entry, kept };
  }
}

/** The plain-data form of an upstream failure, to cross the RPC boundary. */
function specOf(err: ApiError): ErrorSpec {
  return { status: err.status, code: err.code, reason: err.reason, message: err.message, metadata: err.metadata };
}

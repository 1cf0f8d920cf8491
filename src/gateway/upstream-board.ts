/**
 * What each LCD node did lately, as one holder knows it: an edge isolate (module scope), the
 * shields of one isolate, or the shared health object that merges what every shield saw. The
 * board decides the order upstreams are asked in: not skipped and not lagging first.
 */

/** What one upstream did lately; boards hand out copies. */
export interface UpstreamState {
  url: string;
  /** False while the upstream is being skipped after a failure. */
  healthy: boolean;
  consecutiveFailures: number;
  /** Epoch ms until which the upstream is tried only after the others; 0 when not skipped. */
  skippedUntil: number;
  lastStatus: number | null;
  lastLatencyMs: number | null;
  lastError: string | null;
  /** Last block height it answered a read of the latest state with. */
  lastHeight: number | null;
  lastCheckedAt: number | null;
}

/** One attempt's outcome as the board records it. */
export interface AttemptOutcome {
  status: number | null;
  ms: number;
  height?: number | null;
  /** Why the attempt failed; absent when the answer was used. */
  error?: string;
}

/** Blocks an upstream may trail the highest recently seen height and still be asked first. */
const MAX_LAG_BLOCKS = 2;
/** How long a height counts as "recently seen". */
const HEIGHT_MEMORY_MS = 60_000;

export class UpstreamBoard {
  private readonly states = new Map<string, UpstreamState>();

  /** Forgets everything (tests start from nothing). */
  reset(): void {
    this.states.clear();
  }

  private stateOf(url: string): UpstreamState {
    let state = this.states.get(url);
    if (!state) {
      state = {
        url,
        healthy: true,
        consecutiveFailures: 0,
        skippedUntil: 0,
        lastStatus: null,
        lastLatencyMs: null,
        lastError: null,
        lastHeight: null,
        lastCheckedAt: null,
      };
      this.states.set(url, state);
    }
    return state;
  }

  /** Copies of the states of `urls`, `healthy` as of `now`. */
  snapshot(urls: readonly string[], now = Date.now()): UpstreamState[] {
    return urls.map((url) => {
      const state = { ...this.stateOf(url) };
      state.healthy = state.skippedUntil <= now;
      return state;
    });
  }

  /** Copies of the states of every upstream this board has heard of. */
  everyKnown(now = Date.now()): UpstreamState[] {
    return this.snapshot([...this.states.keys()], now);
  }

  /**
   * Order to try: not skipped and not lagging, then lagging, then skipped ones as a last resort; given order within
   * each.
   */
  order(urls: readonly string[], now = Date.now()): string[] {
    const highest = this.highestRecentHeight(urls, now);
    const rank = (url: string) => {
      const s = this.stateOf(url);
      if (s.skippedUntil > now) return 2;
      return s.lastHeight !== null && s.lastHeight < highest - MAX_LAG_BLOCKS ? 1 : 0;
    };
    return urls
      .map((url, i) => ({ url, i, r: rank(url) }))
      .sort((a, b) => a.r - b.r || a.i - b.i)
      .map((x) => x.url);
  }

  /** Records one attempt; a failure skips the upstream for `cooldownMs`. */
  record(url: string, outcome: AttemptOutcome, cooldownMs: number, now = Date.now()): void {
    const s = this.stateOf(url);
    s.lastStatus = outcome.status;
    s.lastLatencyMs = outcome.ms;
    s.lastCheckedAt = now;
    if (outcome.height != null) s.lastHeight = outcome.height;
    if (outcome.error) {
      s.lastError = outcome.error;
      s.consecutiveFailures += 1;
      s.skippedUntil = now + cooldownMs;
      s.healthy = cooldownMs === 0;
    } else {
      s.lastError = null;
      s.consecutiveFailures = 0;
      s.skippedUntil = 0;
      s.healthy = true;
    }
  }

  /** Takes what another holder saw: per upstream, the later observation wins; a known height is never forgotten. */
  merge(states: readonly UpstreamState[]): void {
    for (const seen of states) {
      const mine = this.stateOf(seen.url);
      if (seen.lastCheckedAt === null || (mine.lastCheckedAt !== null && mine.lastCheckedAt >= seen.lastCheckedAt))
        continue;
      this.states.set(seen.url, { ...seen, lastHeight: seen.lastHeight ?? mine.lastHeight });
    }
  }

  /** The highest height any of `urls` answered with in the last minute. */
  private highestRecentHeight(urls: readonly string[], now: number): number {
    let highest = 0;
    for (const url of urls) {
      const s = this.stateOf(url);
      if (s.lastHeight !== null && s.lastCheckedAt !== null && now - s.lastCheckedAt < HEIGHT_MEMORY_MS)
        highest = Math.max(highest, s.lastHeight);
    }
    return highest;
  }
}

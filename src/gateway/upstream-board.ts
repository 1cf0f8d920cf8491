/**
 * What each node did lately, as one holder knows it: an edge isolate (module scope), the shields of
 * one isolate, or the shared health object that merges what every shield saw. The board scores each
 * node and decides the order a miss asks them in (docs/GATEWAY.md, "Node choice"):
 *
 * - benched nodes (a 429 or 503 with Retry-After, until then) are not asked at all, except one probe
 *   once the time is up;
 * - nodes in step come before nodes more than 2 blocks behind. A node's lag is judged when it
 *   reports a height, against the best height its face's other nodes reported in the minute before
 *   or within a second after, and it holds for a minute: a node not asked while the chain moves on
 *   is not "behind";
 * - nodes skipped after a failure (UPSTREAM_COOLDOWN_MS) come last;
 * - within each, the lower cost: the latency EWMA (a hang or a timeout counts as its full wait; a
 *   request still out counts as at least as slow as it has been out) plus 25 ms per error in the
 *   last minute, compared in bands that double in width from 100 ms (0-99, 100-299, 300-699 ms...)
 *   so that noise does not reorder;
 * - the configured order breaks ties, and decides before anything is measured.
 *
 * A node its measures put after the first that no round has asked for 10 s is asked alongside the
 * first by the next round that can let a request run on (`explorer`): a node that hung, lagged,
 * failed or was slow is measured again without a client waiting on it, and an answer after such a
 * gap restarts its average and percentiles.
 *
 * What crosses isolates (`merge`) is heights, benching and the last outcome; latency is each
 * isolate's own, since the fastest node differs from city to city.
 */
import type { NodeView } from "../protocol/gateway-view";

/** What one upstream did lately; boards hand out copies. */
export interface UpstreamState {
  url: string;
  /** False while the upstream is being skipped after a failure or benched. */
  healthy: boolean;
  consecutiveFailures: number;
  /** Epoch ms until which the upstream is tried only after the others; 0 when not skipped. */
  skippedUntil: number;
  lastStatus: number | null;
  lastLatencyMs: number | null;
  lastError: string | null;
  /** Last block height it answered a read of the latest state with. */
  lastHeight: number | null;
  /** When it reported `lastHeight`. */
  heightAt: number | null;
  /**
   * Blocks `lastHeight` trailed the best height the face's other nodes had reported in the minute
   * before it (0 when none had); absent from a holder that does not send it.
   */
  lagAtReport?: number | null;
  lastCheckedAt: number | null;
  /** Epoch ms until which it is asked nothing (its Retry-After); 0 when not benched. */
  benchedUntil: number;
  /** Why it is benched, e.g. "429, Retry-After 10 s". */
  benchReason: string | null;
  /** The holder's latency figures and errors in the last minute at this snapshot (for other holders' views). */
  p50Ms: number | null;
  p99Ms: number | null;
  errorsLastMinute: number;
}

/** One attempt's outcome as the board records it. */
export interface AttemptOutcome {
  status: number | null;
  ms: number;
  height?: number | null;
  /** Why the attempt failed; absent when the answer was used. */
  error?: string;
  /** For a 429 or 503 with Retry-After: how long the node asked to be left alone. */
  retryAfterMs?: number;
  /** The nodes of the attempt's face: a reported height's lag is judged against theirs. */
  peers?: readonly string[];
}

/** Blocks an upstream may trail the highest recently seen height and still count as in step. */
const MAX_LAG_BLOCKS = 2;
/** How long a height counts as "recently reported". */
const HEIGHT_MEMORY_MS = 60_000;
/**
 * Heights reported this close together are compared as of one moment: a later, higher one shows the
 * earlier node behind too (a chain makes at most a block or so in a second).
 */
const ONE_MOMENT_MS = 1_000;
/** Longest bench a node's Retry-After can ask for. */
const MAX_BENCH_MS = 300_000;
/** Weight of the newest latency in the EWMA. */
const EWMA_WEIGHT = 0.3;
/** A node's latency figures not refreshed for this long are forgotten: it is asked again as unmeasured. */
const LATENCY_MEMORY_MS = 300_000;
/**
 * A node no round has asked for this long is asked alongside the first one (`explorer`), and an
 * answer after such a gap restarts its average and percentiles: what it did before no longer
 * describes it.
 */
const EXPLORE_MS = 10_000;
/** Latencies kept per node for its percentiles. */
const SAMPLES = 50;
/**
 * What one error in the last minute adds to a node's cost: one error does not move a fast node out of
 * its band (the cooldown skips it meanwhile), errors that repeat do.
 */
const ERROR_COST_MS = 25;
const ERROR_WINDOW_MS = 60_000;
/** Costs within one band count as equal: the configured order decides between them. */
const BAND_MS = 100;

interface NodeRecord extends Omit<UpstreamState, "p50Ms" | "p99Ms" | "errorsLastMinute" | "lagAtReport"> {
  lagAtReport: number | null;
  ewmaMs: number | null;
  latencyAt: number;
  samples: number[];
  errorTimes: number[];
  /** A benched node's one probe is out. */
  probing: boolean;
  /** The last height it reported, believed or not, and when: what a second node may confirm. */
  reportedHeight: number | null;
  reportedAt: number;
  /** What the last other holder measured, shown when this one has no figures of its own. */
  reported: { p50: number | null; p99: number | null; errors: number };
  /** Misses of its face (rounds it could have been asked in), and hedges sent because it was slow. */
  misses: number;
  hedges: number;
  /** When each of its requests still out began, oldest first. */
  outstanding: number[];
  /** When a round last asked it (null: no round has had the chance yet). */
  askedAt: number | null;
}

const percentile = (sorted: readonly number[], p: number): number | null =>
  sorted.length === 0 ? null : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

/** The latency and error figures of one node in one isolate (`/api/gateway`). */
export interface NodeFigures {
  p50: number | null;
  p95: number | null;
  p99: number | null;
  errorsLastMinute: number;
  /** Blocks it trailed its face by when it last reported a height, while that report is recent. */
  behind: number | null;
}

export class UpstreamBoard {
  private readonly states = new Map<string, NodeRecord>();

  /** Forgets everything (tests start from nothing). */
  reset(): void {
    this.states.clear();
  }

  private stateOf(url: string): NodeRecord {
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
        heightAt: null,
        lagAtReport: null,
        lastCheckedAt: null,
        benchedUntil: 0,
        benchReason: null,
        ewmaMs: null,
        latencyAt: 0,
        samples: [],
        errorTimes: [],
        probing: false,
        reportedHeight: null,
        reportedAt: 0,
        reported: { p50: null, p99: null, errors: 0 },
        misses: 0,
        hedges: 0,
        outstanding: [],
        askedAt: null,
      };
      this.states.set(url, state);
    }
    return state;
  }

  /** Copies of the shared states of `urls`, `healthy` as of `now`. */
  snapshot(urls: readonly string[], now = Date.now()): UpstreamState[] {
    return urls.map((url) => {
      const s = this.stateOf(url);
      const figures = this.figures(url, now);
      return {
        p50Ms: figures.p50,
        p99Ms: figures.p99,
        errorsLastMinute: figures.errorsLastMinute,
        url,
        healthy: s.skippedUntil <= now && s.benchedUntil <= now,
        consecutiveFailures: s.consecutiveFailures,
        skippedUntil: s.skippedUntil,
        lastStatus: s.lastStatus,
        lastLatencyMs: s.lastLatencyMs,
        lastError: s.lastError,
        lastHeight: s.lastHeight,
        heightAt: s.heightAt,
        lagAtReport: s.lagAtReport,
        lastCheckedAt: s.lastCheckedAt,
        benchedUntil: s.benchedUntil,
        benchReason: s.benchReason,
      };
    });
  }

  /** Copies of the states of every upstream this board has heard of. */
  everyKnown(now = Date.now()): UpstreamState[] {
    return this.snapshot([...this.states.keys()], now);
  }

  /**
   * The figures of `url` as of `now`: its latency percentiles, errors in the last minute and lag. With no
   * latency of its own, the holder shows what the last reporting holder measured (`merge`). Its lag
   * is the one judged at its last report, while that report is recent.
   */
  figures(url: string, now = Date.now()): NodeFigures {
    const s = this.stateOf(url);
    const sorted = this.freshSamples(s, now).toSorted((a, b) => a - b);
    const own = sorted.length > 0;
    const errors = s.errorTimes.filter((t) => now - t < ERROR_WINDOW_MS).length;
    return {
      p50: own ? percentile(sorted, 0.5) : s.reported.p50,
      p95: percentile(sorted, 0.95),
      p99: own ? percentile(sorted, 0.99) : s.reported.p99,
      errorsLastMinute: Math.max(errors, s.reported.errors),
      behind: this.lag(s, now),
    };
  }

  /**
   * The order to ask `urls` in (see the top of this file); benched nodes are left out, except one
   * probe once their time is up.
   */
  order(urls: readonly string[], now = Date.now()): string[] {
    return this.rank(urls, now).map((x) => x.url);
  }

  /** `urls` not benched (nor with their probe out), best first, each with the tier and band it was ranked by. */
  private rank(urls: readonly string[], now: number) {
    const ranked: { url: string; i: number; tier: number; band: number }[] = [];
    urls.forEach((url, i) => {
      const s = this.stateOf(url);
      if (s.benchedUntil > now || (s.benchReason !== null && s.probing)) return;
      const tier = s.skippedUntil > now ? 2 : (this.lag(s, now) ?? 0) > MAX_LAG_BLOCKS ? 1 : 0;
      ranked.push({ url, i, tier, band: Math.floor(Math.log2(1 + this.cost(s, now) / BAND_MS)) });
    });
    return ranked.sort((a, b) => a.tier - b.tier || a.band - b.band || a.i - b.i);
  }

  /**
   * A node's cost in ms: its latency EWMA (none measured recently: 0), or the age of its oldest
   * request still out when that is more (a hang weighs from the moment it is slow, not from its
   * timeout), and its recent errors.
   */
  private cost(s: NodeRecord, now: number): number {
    const measured = s.ewmaMs !== null && now - s.latencyAt < LATENCY_MEMORY_MS ? s.ewmaMs : 0;
    const out = s.outstanding.length > 0 ? now - s.outstanding[0]! : 0;
    return Math.max(measured, out) + ERROR_COST_MS * s.errorTimes.filter((t) => now - t < ERROR_WINDOW_MS).length;
  }

  /**
   * The node of `urls` to ask alongside the first in `order`: of those its measures put after the
   * first (skipped, behind, or in a costlier band; not one merely listed after an equal), the one
   * no round has asked for longest, once that is 10 s. Benched nodes and probes out are not
   * asked. Null when none is due; a node never asked waits from the first round that could.
   */
  explorer(urls: readonly string[], now = Date.now()): string | null {
    const [first, ...rest] = this.rank(urls, now);
    let due: NodeRecord | null = null;
    for (const { url, tier, band } of rest) {
      if (tier === first!.tier && band === first!.band) continue;
      const s = this.stateOf(url);
      s.askedAt ??= now;
      if (now - s.askedAt >= EXPLORE_MS && (due === null || s.askedAt < due.askedAt!)) due = s;
    }
    return due?.url ?? null;
  }

  /**
   * Marks an attempt begun on `url` at `now` (until `end`): a benched node whose time is up has its
   * one probe out.
   */
  begin(url: string, now = Date.now()): void {
    const s = this.stateOf(url);
    if (s.benchReason !== null && s.benchedUntil <= now) s.probing = true;
    s.askedAt = now;
    s.outstanding.push(now);
  }

  /** Marks the attempt `begin` started at `startedAt` on `url` as no longer out. */
  end(url: string, startedAt: number): void {
    const out = this.stateOf(url).outstanding;
    const i = out.indexOf(startedAt);
    if (i >= 0) out.splice(i, 1);
  }

  /** Counts a miss of the face whose nodes are `urls`. */
  countMiss(urls: readonly string[]): void {
    for (const url of urls) this.stateOf(url).misses += 1;
  }

  /**
   * Whether a hedge may be sent because `url` is slow: hedges for it stay within 10% of its face's
   * misses (one to start with), so hedging adds at most a tenth to the requests per slow node, and
   * the score, not the hedge, moves traffic off a node that keeps hanging.
   */
  mayHedge(url: string): boolean {
    const s = this.stateOf(url);
    return s.hedges < 1 + s.misses / 10;
  }

  countHedge(url: string): void {
    this.stateOf(url).hedges += 1;
  }

  /** How long to wait for `url` before a hedge: about its p95, at least 150 ms, at most 1 s (unmeasured: 1 s). */
  hedgeDelay(url: string, now = Date.now()): number {
    const p95 = this.figures(url, now).p95;
    return Math.min(1000, Math.max(150, p95 ?? 1000));
  }

  /**
   * Records one attempt; a failure skips the upstream for `cooldownMs`, a Retry-After benches it for
   * that long instead (at most 5 minutes). A height is judged against `outcome.peers`' recent ones.
   */
  record(url: string, outcome: AttemptOutcome, cooldownMs: number, now = Date.now()): void {
    const s = this.stateOf(url);
    s.lastStatus = outcome.status;
    s.lastLatencyMs = outcome.ms;
    s.lastCheckedAt = now;
    this.measure(s, outcome.ms, outcome.ms, now);
    if (outcome.height != null) {
      const peers = outcome.peers?.filter((peer) => peer !== url) ?? [];
      const others = this.bestRecentHeight(peers, now);
      s.lagAtReport = others === null ? 0 : Math.max(0, others - outcome.height);
      s.lastHeight = outcome.height;
      s.heightAt = now;
      for (const peer of peers) {
        const p = this.stateOf(peer);
        if (p.lastHeight !== null && p.heightAt !== null && now - p.heightAt <= ONE_MOMENT_MS)
          p.lagAtReport = Math.max(p.lagAtReport ?? 0, outcome.height - p.lastHeight);
      }
    }
    if (outcome.error) {
      s.lastError = outcome.error;
      s.consecutiveFailures += 1;
      s.skippedUntil = now + cooldownMs;
      s.healthy = cooldownMs === 0;
      s.errorTimes = [...s.errorTimes.filter((t) => now - t < ERROR_WINDOW_MS), now];
      if (outcome.retryAfterMs !== undefined) {
        const ms = Math.min(MAX_BENCH_MS, Math.max(0, outcome.retryAfterMs));
        s.benchedUntil = now + ms;
        s.skippedUntil = s.benchedUntil;
        s.benchReason = `${outcome.status}, Retry-After ${Math.ceil(ms / 1000)} s`;
      }
    } else {
      s.lastError = null;
      s.consecutiveFailures = 0;
      s.skippedUntil = 0;
      s.healthy = true;
      s.benchedUntil = 0;
      s.benchReason = null;
    }
  }

  /** Measures an abandoned attempt (a hedge answered first): slow for as long as it was waited for, not an error. */
  recordSlow(url: string, ms: number, now = Date.now()): void {
    const s = this.stateOf(url);
    this.measure(s, ms, Math.max(ms, s.ewmaMs ?? ms), now);
  }

  /**
   * Takes one latency: `sample` into the percentiles, `toward` into the average. After 10 s without
   * one, both restart from it: a hang from before does not set the hedge delay of a node that
   * answers again.
   */
  private measure(s: NodeRecord, sample: number, toward: number, now: number): void {
    const restart = s.ewmaMs === null || now - s.latencyAt >= EXPLORE_MS;
    if (restart) s.samples = [];
    s.ewmaMs = restart ? sample : s.ewmaMs! + EWMA_WEIGHT * (toward - s.ewmaMs!);
    s.latencyAt = now;
    s.samples.push(sample);
    if (s.samples.length > SAMPLES) s.samples.shift();
    s.probing = false;
  }

  /**
   * Whether `height`, reported by `url`, is past belief: above `ceiling` (the mark's, served-height.ts)
   * and more than 1,000 blocks past every other node's last report. Its report is kept either way, so
   * that a second node reaching it makes it believed.
   */
  beyondBelief(url: string, height: number, ceiling: number | undefined, urls: readonly string[], now = Date.now()) {
    const s = this.stateOf(url);
    s.reportedHeight = height;
    s.reportedAt = now;
    if (ceiling === undefined || height <= ceiling) return false;
    return urls.every((other) => {
      if (other === url) return true;
      const o = this.stateOf(other);
      return o.reportedHeight === null || now - o.reportedAt >= HEIGHT_MEMORY_MS || height - o.reportedHeight > 1000;
    });
  }

  /** Whether `url`'s recent height was the best of its face when reported: its "not found" is final. */
  atTop(url: string, now = Date.now()): boolean {
    return this.lag(this.stateOf(url), now) === 0;
  }

  /**
   * Takes what another holder saw: per upstream, the later observation wins (its last outcome, its
   * skip and its bench), a later height wins, and a bench still running is kept. Latency is not
   * taken: it is this holder's own.
   */
  merge(states: readonly UpstreamState[]): void {
    for (const seen of states) {
      const mine = this.stateOf(seen.url);
      if ((seen.heightAt ?? 0) > (mine.heightAt ?? 0)) {
        mine.lastHeight = seen.lastHeight;
        mine.heightAt = seen.heightAt;
        mine.lagAtReport = seen.lagAtReport ?? null;
      }
      if (seen.benchedUntil > mine.benchedUntil) {
        mine.benchedUntil = seen.benchedUntil;
        mine.benchReason = seen.benchReason;
      }
      if (seen.lastCheckedAt === null || (mine.lastCheckedAt !== null && mine.lastCheckedAt >= seen.lastCheckedAt))
        continue;
      mine.lastStatus = seen.lastStatus;
      mine.lastLatencyMs = seen.lastLatencyMs;
      mine.lastError = seen.lastError;
      mine.consecutiveFailures = seen.consecutiveFailures;
      mine.skippedUntil = seen.skippedUntil;
      mine.healthy = seen.healthy;
      mine.lastCheckedAt = seen.lastCheckedAt;
      mine.reported = { p50: seen.p50Ms, p99: seen.p99Ms, errors: seen.errorsLastMinute };
      // A later success ends a bench another holder still carries.
      if (seen.lastError === null && seen.benchedUntil === 0) {
        mine.benchedUntil = 0;
        mine.benchReason = null;
      }
    }
  }

  /**
   * What `GET /api/gateway` shows of `urls` as of `now`: benched while a Retry-After or a failure's
   * cooldown keeps it out of turn, behind when its recent report was more than 2 blocks behind its
   * face, else serving.
   */
  view(urls: readonly string[], now = Date.now()): NodeView[] {
    return urls.map((url): NodeView => {
      const s = this.stateOf(url);
      const figures = this.figures(url, now);
      const configured = new URL(url);
      const base = {
        url: `${configured.origin}${configured.pathname.replace(/\/$/, "")}`,
        height: this.recentHeight(s, now),
        behind: figures.behind,
        latency_ms: { p50: figures.p50, p99: figures.p99 },
        errors_last_minute: figures.errorsLastMinute,
      };
      if (s.benchedUntil > now)
        return { ...base, state: "benched", reason: s.benchReason, until: new Date(s.benchedUntil).toISOString() };
      if (s.skippedUntil > now)
        return { ...base, state: "benched", reason: s.lastError, until: new Date(s.skippedUntil).toISOString() };
      if (figures.behind !== null && figures.behind > MAX_LAG_BLOCKS)
        return { ...base, state: "behind", reason: `${figures.behind} blocks behind`, until: null };
      return { ...base, state: "serving", reason: null, until: null };
    });
  }

  /** The node's height when reported within the last minute, else null. */
  private recentHeight(s: NodeRecord, now: number): number | null {
    return s.lastHeight !== null && s.heightAt !== null && now - s.heightAt < HEIGHT_MEMORY_MS ? s.lastHeight : null;
  }

  /** Blocks the node trailed its face by at its last report, while that report is recent; else null. */
  private lag(s: NodeRecord, now: number): number | null {
    return this.recentHeight(s, now) === null ? null : s.lagAtReport;
  }

  /** The highest height any of `urls` reported in the last minute, or null. */
  private bestRecentHeight(urls: readonly string[], now = Date.now()): number | null {
    let best: number | null = null;
    for (const url of urls) {
      const height = this.recentHeight(this.stateOf(url), now);
      if (height !== null && (best === null || height > best)) best = height;
    }
    return best;
  }

  private freshSamples(s: NodeRecord, now: number): number[] {
    return now - s.latencyAt < LATENCY_MEMORY_MS ? s.samples : [];
  }
}

/**
 * Upstream health shared across isolates and cities: the shields of an isolate ask the upstreams
 * in the order their board gives, and keep that board in step with the one health object, so a
 * node found failing or lagging by one shield is asked last by every other, and one benched by a
 * Retry-After is asked by none until its time is up. The health object is
 * advisory: when it is slow or away, a shield goes on with what it knows.
 */
import type { UpstreamHealth } from "../../../durable-objects/gateway/UpstreamHealth";
import type { Config } from "../../config";
import { within } from "../deadline";
import { UpstreamBoard, type UpstreamState } from "../upstream-board";
import {
  askUpstreams,
  upstreamUrlsOf,
  type UpstreamAnswer,
  type UpstreamQuery,
  type UpstreamSettings,
} from "../upstreams";
import { placement } from "./protocol";

/**
 * Name of the deployment's one health object.
 * @internal Exported for the tests' setup only (each test starts with it empty).
 */
export const HEALTH_OBJECT = "upstreams";
/** A board older than this is refreshed from the health object before an upstream round. */
const SYNC_MS = 1000;
/** Longest wait for the health object; past it the round goes on with the board as it is. */
const HEALTH_WAIT_MS = 250;

export type HealthNamespace = DurableObjectNamespace<UpstreamHealth>;

/** The deployment's health object, placed like the shields. */
function healthObject(namespace: HealthNamespace, settings: Pick<Config, "cacheShieldLocation">) {
  return namespace.getByName(HEALTH_OBJECT, placement(settings));
}

/**
 * One isolate's board, kept in step with the health object: at most one exchange a second while
 * nothing changes, and one at once when a node fails, recovers or is seen for the first time.
 * @internal Exported for its tests only.
 */
export class HealthLink {
  /** When the board last took the shared view. */
  private syncedAt = 0;
  /** Observations from this time on have not been reported yet. */
  private unreportedFrom = 0;

  constructor(readonly board = new UpstreamBoard()) {}

  /**
   * One upstream round in the shared order. What changed (a node failing, recovering, or seen for
   * the first time: the discoveries others should not pay for again) is reported before the
   * answer leaves; what merely confirms the known goes with the next exchange.
   */
  async ask(
    namespace: HealthNamespace,
    settings: UpstreamSettings & Pick<Config, "cacheShieldLocation">,
    query: UpstreamQuery,
    background: (work: Promise<unknown>) => void,
  ): Promise<UpstreamAnswer> {
    const health = healthObject(namespace, settings);
    const urls = upstreamUrlsOf(settings, query);
    if (this.due()) await this.exchange(health, urls);
    const before = this.board.snapshot(urls);
    let answer: UpstreamAnswer | undefined;
    try {
      answer = await askUpstreams(settings, query, this.board, background);
      return answer;
    } finally {
      const after = this.board.snapshot(urls);
      const changed = after.some(
        (s, i) =>
          s.lastCheckedAt !== before[i]!.lastCheckedAt &&
          (s.lastError !== null || before[i]!.lastCheckedAt === null || !before[i]!.healthy),
      );
      if (!answer || changed) await this.exchange(health, urls);
      else if (this.due()) background(this.exchange(health, urls));
    }
  }

  /** Forgets the board and when it was last in step (tests start from nothing). */
  reset(): void {
    this.board.reset();
    this.syncedAt = 0;
    this.unreportedFrom = 0;
  }

  private due(): boolean {
    return Date.now() - this.syncedAt >= SYNC_MS;
  }

  /**
   * Sends what this board saw since its last report and takes the merged view; gives up quietly after a bounded wait.
   */
  private async exchange(health: ReturnType<typeof healthObject>, urls: readonly string[]): Promise<void> {
    const from = this.unreportedFrom;
    const now = Date.now();
    const seen = this.board.snapshot(urls).filter((s) => s.lastCheckedAt !== null && s.lastCheckedAt >= from);
    try {
      const merged = await within(health.report(seen), HEALTH_WAIT_MS, "the health object did not answer");
      this.board.merge(merged);
      this.syncedAt = Date.now();
      this.unreportedFrom = now;
    } catch {
      // Advisory only: this board's own view stands.
    }
  }
}

/** The isolate-wide link the shields share. */
export const shieldHealth = new HealthLink();

/**
 * The shared view of `config`'s upstreams for `/api/health`, or null when the health object does not answer in time.
 */
export async function sharedUpstreamHealth(
  namespace: HealthNamespace,
  config: Config,
): Promise<UpstreamState[] | null> {
  try {
    return await within(
      healthObject(namespace, config).report([]),
      config.cacheShieldWaitMs,
      "the health object did not answer",
    );
  } catch {
    return null;
  }
}

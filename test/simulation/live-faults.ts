/**
 * The live face's faults, drawn from a random source of their own (seeded from the seed), so a
 * seed's other draws stay as they were: per CometBFT node, windows down (sockets dropped, upgrades
 * and reads refused), stalled (no frames), lagging (its head behind) and shuffled (a height sent
 * twice or after the next); in some seeds a failover to a lagging node (the first node down for
 * minutes while the second lags 10 to 40 blocks); the feed refusing calls (a join fails); the
 * shards' deliveries rejected or slow; the feed and the shards restarted (evicted) after any step
 * and at random times. Every window ends by `calmAt`.
 */
import type { Random } from "./kernel";
import { clock } from "./faults";

interface Window {
  from: number;
  to: number;
}

export interface LiveFaults {
  /** The live window: clients subscribe within it, the faults end by `calmAt`, the clients leave at `leaveAt`. */
  calmAt: number;
  leaveAt: number;
  down(node: number, now: number): boolean;
  stalled(node: number, now: number): boolean;
  lag(node: number, now: number): number;
  shuffled(node: number, now: number): boolean;
  /** Whether the platform ends an upgraded socket when its fetch's signal aborts (not established: a seed decides). */
  abortEndsUpgrade: boolean;
  /** A call from a shard to the feed is refused now (a join or a leave fails). */
  feedRefuses(now: number): boolean;
  /** The feed's refusal windows (a crowd may arrive in one). */
  feedRefusals: readonly Window[];
  /** A delivery (`deliver`, `cancelAll`) to a shard is rejected now. */
  deliveryRejected(now: number): boolean;
  /** A delivery to a shard is slowed now by this many ms (0: not). */
  deliverySlowMs(now: number): number;
  /** The chance that the feed or a shard is evicted right after one of its steps. */
  evictionRate(now: number): number;
  /** Times at which the feed, or a shard, is restarted whatever it is doing. */
  feedRestarts: readonly number[];
  shardRestarts: readonly { at: number; shard: number }[];
  /** A failover to a lagging node: when the first node went down and the second lagged. */
  failover: Window | null;
  describe(): string[];
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;

const within = (list: readonly Window[], now: number) => list.some((w) => now >= w.from && now < w.to);

function windows(random: Random, start: number, span: number, count: number, minMs: number, maxMs: number) {
  return Array.from({ length: count }, () => {
    const from = start + random.int(0, span);
    return { from, to: from + random.int(minMs, maxMs) };
  });
}

/** No live faults (a seed without the live face's crowd: only the follower listens). */
export function calmLive(start: number): LiveFaults {
  return {
    calmAt: start,
    leaveAt: start,
    down: () => false,
    stalled: () => false,
    lag: () => 0,
    shuffled: () => false,
    abortEndsUpgrade: false,
    feedRefuses: () => false,
    feedRefusals: [],
    deliveryRejected: () => false,
    deliverySlowMs: () => 0,
    evictionRate: () => 0,
    feedRestarts: [],
    shardRestarts: [],
    failover: null,
    describe: () => [],
  };
}

export function planLiveFaults(random: Random, start: number, shards: number): LiveFaults {
  const span = 18 * MINUTE;
  const calmAt = start + 22 * MINUTE;
  const clip = (list: Window[]) => list.map((w) => ({ from: w.from, to: Math.min(w.to, calmAt) }));
  const perNode = () => ({
    down: clip(windows(random, start, span, random.int(0, 2), 10 * SECOND, 4 * MINUTE)),
    stall: clip(windows(random, start, span, random.int(0, 2), 10 * SECOND, 2 * MINUTE)),
    lag: clip(windows(random, start, span, random.int(0, 2), 30 * SECOND, 5 * MINUTE)).map((w) => ({
      ...w,
      blocks: random.int(2, 40),
    })),
    shuffle: clip(windows(random, start, span, random.int(0, 2), 30 * SECOND, 5 * MINUTE)),
  });
  const nodes = [perNode(), perNode()];
  let failover: Window | null = null;
  if (random.chance(0.3)) {
    // The first node goes down for minutes while the onboardings wait; the second lags far behind meanwhile.
    const from = start + random.int(2 * MINUTE, 6 * MINUTE);
    failover = { from, to: from + random.int(2 * MINUTE, 5 * MINUTE) };
    nodes[0]!.down.push(failover);
    nodes[1]!.lag.push({ from: from - MINUTE, to: failover.to + MINUTE, blocks: random.int(10, 40) });
  }
  const abortEndsUpgrade = random.chance(0.5);
  const feedRefuses = clip(windows(random, start, span, random.int(0, 3), SECOND, 10 * SECOND));
  const rejected = clip(windows(random, start, span, random.int(0, 2), 5 * SECOND, 2 * MINUTE));
  const rejectRate = random.pick([0.2, 0.5, 1]);
  const slow = clip(windows(random, start, span, random.int(0, 2), 5 * SECOND, 2 * MINUTE));
  const evictionRate = random.pick([0, 0.002, 0.01, 0.03]);
  const feedRestarts = Array.from({ length: random.int(0, 3) }, () => start + random.int(0, span));
  const shardRestarts = Array.from({ length: random.int(0, 3) }, () => ({
    at: start + random.int(0, span),
    shard: random.int(0, shards - 1),
  }));
  const show = (name: string, list: readonly Window[]) =>
    list.map((w) => `${name} ${clock(w.from - start)}..${clock(w.to - start)}`);
  return {
    calmAt,
    leaveAt: calmAt + 8 * MINUTE,
    down: (node, now) => within(nodes[node]!.down, now),
    stalled: (node, now) => within(nodes[node]!.stall, now),
    lag: (node, now) =>
      Math.max(0, ...nodes[node]!.lag.filter((w) => now >= w.from && now < w.to).map((w) => w.blocks)),
    shuffled: (node, now) => within(nodes[node]!.shuffle, now),
    abortEndsUpgrade,
    feedRefuses: (now) => within(feedRefuses, now),
    feedRefusals: feedRefuses,
    deliveryRejected: (now) => within(rejected, now) && random.chance(rejectRate),
    deliverySlowMs: (now) => (within(slow, now) ? random.int(SECOND, 8 * SECOND) : 0),
    evictionRate: (now) => (now < calmAt ? evictionRate : 0),
    feedRestarts,
    shardRestarts,
    failover,
    describe: () => [
      ...nodes.flatMap((n, i) => [
        ...show(`rpc node ${i + 1} down`, n.down),
        ...show(`rpc node ${i + 1} stalled`, n.stall),
        ...n.lag.map((w) => `${show(`rpc node ${i + 1} lags ${w.blocks} blocks`, [w])[0]}`),
        ...show(`rpc node ${i + 1} sends heights twice or out of order`, n.shuffle),
      ]),
      ...(failover ? show("failover to a lagging node", [failover]) : []),
      `the platform ${abortEndsUpgrade ? "ends" : "keeps"} an upgraded socket when its fetch's signal aborts`,
      ...show("the feed refuses calls", feedRefuses),
      ...show(`deliveries rejected (${rejectRate * 100} %)`, rejected),
      ...show("deliveries slow (1 to 8 s)", slow),
      `live evictions: ${evictionRate} per step`,
      ...feedRestarts.map((t) => `feed restarted at ${clock(t - start)}`),
      ...shardRestarts.map((r) => `shard ${r.shard} restarted at ${clock(r.at - start)}`),
    ],
  };
}

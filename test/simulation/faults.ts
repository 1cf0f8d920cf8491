/**
 * The faults a seed chooses, as windows of simulated time: D1 refusing writes, the receiver
 * failing (5xx, no connection) or hanging, or refusing one onboarding's events for good, the
 * follower unreachable, nodes answering an older height or not at all, hints duplicated and
 * reordered, and how often an object is evicted between two steps. Every transient fault ends
 * by `calmAt`; only a receiver down for days (or for good) and the one refused onboarding stay.
 */
import { Random } from "./kernel";

type ReceiverMode = "ok" | "5xx" | "unreachable" | "hang" | "refuse" | "unauthorized";

interface Window {
  from: number;
  to: number;
}

interface ReceiverWindow extends Window {
  mode: "5xx" | "unreachable" | "hang";
}

export interface FaultPlan {
  /** Transient faults all end by then. */
  calmAt: number;
  d1Refuses(now: number): boolean;
  /** Whether D1 is slow now: a statement may then take longer than the index write's lease. */
  d1Slow(now: number): boolean;
  /** Whether D1 was slow at some time in [from, to]. */
  d1SlowDuring(from: number, to: number): boolean;
  receiver(now: number, onboarding: string): ReceiverMode;
  followerUnreachable(now: number): boolean;
  /** Whether a pairing session's tell to its onboarding is lost now (the onboarding cannot be reached from it). */
  tellsLost(now: number): boolean;
  /** Blocks an answering node may trail the head by (0: none). */
  nodeLag(now: number): number;
  nodesDown(now: number): boolean;
  /** Whether the LCD nodes lagged or failed, or the follower could not be reached, at some time in [from, to]. */
  lcdTroubleDuring(from: number, to: number): boolean;
  /** Hints sent more than once and out of order. */
  hintsShuffled(now: number): boolean;
  /** The chance that an object is evicted right after one of its steps. */
  evictionRate(now: number): number;
  /** The end of the last window of a receiver fault every onboarding sees (null: none; Infinity: dead for good). */
  receiverFaultEnd(): number | null;
  /** Whether the receiver failed for everyone at some time in [from, to]. */
  receiverFaultDuring(from: number, to: number): boolean;
  refused: { onboarding: string; from: number } | null;
  /** When the receiver began to answer 401 to everything (null: it never does). */
  unauthorizedFrom: number | null;
  describe(): string[];
}

const MIN = 60_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

function windows(random: Random, start: number, span: number, count: number, minMs: number, maxMs: number) {
  const out: Window[] = [];
  for (let i = 0; i < count; i++) {
    const from = start + random.int(0, span);
    out.push({ from, to: from + random.int(minMs, maxMs) });
  }
  return out;
}

const within = (list: readonly Window[], now: number) => list.some((w) => now >= w.from && now < w.to);

/** The profile of a run: how many onboardings, and which faults it favours. */
export interface Profile {
  onboardings: number;
  /** The receiver fails for everyone for days (1 to 4), or dies for good (the crowds). */
  receiverDown: "days" | "for good" | null;
  /** The receiver refuses one onboarding's events for good. */
  refusing: boolean;
  /** The receiver answers 401 to every event from some minute on (a key the host rotated away). */
  unauthorized?: boolean;
  /** Hundreds of onboardings, each with one event, held by a receiver dead for good (SIM_FIND only). */
  crowd?: boolean;
  /**
   * With a receiver down for days, D1 is slow (most writes 3 to 12 s) for hours around the give-ups, while a
   * watchful host resends them: two index writes of one onboarding overlap and land out of order.
   */
  slowGiveUps?: boolean;
}

/** The seeds of the slow give-ups: half of those whose receiver is down for days, drawn apart from the seed's draws. */
export function slowGiveUps(seed: number, profile: Profile): boolean {
  return profile.receiverDown === "days" && new Random(seed ^ 0x51d7).chance(0.5);
}

export function planFaults(
  random: Random,
  start: number,
  profile: Profile,
  ids: readonly string[],
  seed: number,
): FaultPlan {
  const span = 20 * MIN;
  const calmAt = start + 30 * MIN;
  const clip = (list: Window[]) => list.map((w) => ({ from: w.from, to: Math.min(w.to, calmAt) }));
  const d1 = clip(windows(random, start, span, random.int(0, 3), 10_000, 10 * MIN));
  // D1 slow: the first 20 minutes, or, in some seeds, for good (a give-up three days on meets it too).
  const slowRate = random.pick([0, 0, 0.05, 0.3]);
  const slowForGood = slowRate > 0 && random.chance(0.5);
  const slow = slowRate === 0 ? [] : slowForGood ? [{ from: start, to: Infinity }] : [{ from: start, to: calmAt }];
  const unauthorizedFrom = profile.unauthorized ? start + random.int(0, 10 * MIN) : null;
  const receiver: ReceiverWindow[] = clip(windows(random, start, span, random.int(0, 3), 5_000, 20 * MIN)).map((w) => ({
    ...w,
    mode: random.pick(["5xx", "unreachable", "hang"] as const),
  }));
  if (profile.receiverDown !== null) {
    const from = start + random.int(0, 10 * MIN);
    const to = profile.receiverDown === "days" ? from + random.int(1, 4) * DAY + random.int(0, HOUR) : Infinity;
    receiver.push({ from, to, mode: "5xx" });
  }
  const follower = clip(windows(random, start, span, random.int(0, 3), 5_000, 8 * MIN));
  // Drawn from a random source of their own, so that adding them left every other draw of a seed as it was.
  const tellRandom = new Random(seed ^ 0x7e11);
  const tells = clip(windows(tellRandom, start, span, tellRandom.int(0, 2), 5_000, 5 * MIN));
  const lag = clip(windows(random, start, span, random.int(0, 3), 10_000, 8 * MIN)).map((w) => ({
    ...w,
    blocks: random.int(1, 4),
  }));
  const down = clip(windows(random, start, span, random.int(0, 2), 5_000, 5 * MIN));
  const hints = clip(windows(random, start, span, random.int(0, 2), 30_000, 10 * MIN));
  const evictionRate = random.pick([0, 0.002, 0.01, 0.05]);
  // Slow give-ups: from two hours before the first give-ups (3 days after the receiver went down) to six hours after,
  // most statements slow; drawn from a random source of their own, so the other seeds keep every draw.
  const aroundRandom = new Random(seed ^ 0x51d2);
  const downFrom = receiver.find((w) => w.to - w.from > DAY)?.from ?? start;
  const around = profile.slowGiveUps
    ? [{ from: downFrom + 3 * DAY - 2 * HOUR, to: downFrom + 3 * DAY + 6 * HOUR }]
    : [];
  const aroundRate = aroundRandom.pick([0.5, 0.8, 1]);
  const refused =
    profile.refusing && ids.length > 0
      ? { onboarding: random.pick(ids), from: start + random.pick([0, random.int(0, 10 * MIN)]) }
      : null;
  const general = (now: number) => receiver.find((w) => now >= w.from && now < w.to);
  const show = (name: string, list: readonly Window[]) =>
    list.map((w) => `${name} ${clock(w.from - start)}..${w.to === Infinity ? "for good" : clock(w.to - start)}`);

  return {
    calmAt,
    refused,
    d1Refuses: (now) => within(d1, now),
    d1Slow: (now) =>
      (within(slow, now) && random.chance(slowRate)) || (within(around, now) && aroundRandom.chance(aroundRate)),
    d1SlowDuring: (from, to) => [...slow, ...around].some((w) => w.from <= to && w.to >= from),
    receiver: (now, onboarding) => {
      const window = general(now);
      if (window) return window.mode;
      if (refused && refused.onboarding === onboarding && now >= refused.from) return "refuse";
      if (unauthorizedFrom !== null && now >= unauthorizedFrom) return "unauthorized";
      return "ok";
    },
    followerUnreachable: (now) => within(follower, now),
    tellsLost: (now) => within(tells, now),
    nodeLag: (now) => lag.find((w) => now >= w.from && now < w.to)?.blocks ?? 0,
    nodesDown: (now) => within(down, now),
    lcdTroubleDuring: (from, to) => [...lag, ...down, ...follower].some((w) => w.from <= to && w.to >= from),
    hintsShuffled: (now) => within(hints, now),
    evictionRate: (now) => (now < calmAt ? evictionRate : 0),
    unauthorizedFrom,
    receiverFaultEnd: () => (receiver.length === 0 ? null : Math.max(...receiver.map((w) => w.to))),
    receiverFaultDuring: (from, to) => receiver.some((w) => w.from <= to && w.to >= from),
    describe: () => [
      ...show("D1 refuses", d1),
      ...(slowRate > 0 ? [`D1 slow (3 to 12 s) for ${slowRate * 100} % of statements ${show("", slow)[0]}`] : []),
      ...(around.length > 0
        ? [`D1 slow around the give-ups for ${aroundRate * 100} % of statements${show("", around)[0]}`]
        : []),
      ...(unauthorizedFrom !== null
        ? [`receiver answers 401 to everything from ${clock(unauthorizedFrom - start)}`]
        : []),
      ...receiver.map((w) => `${show(`receiver ${w.mode}`, [w])[0]}`),
      ...(refused ? [`receiver refuses ${refused.onboarding} from ${clock(refused.from - start)}`] : []),
      ...show("follower unreachable", follower),
      ...show("tells lost", tells),
      ...lag.map((w) => `${show(`nodes lag ${w.blocks} blocks`, [w])[0]}`),
      ...show("nodes down", down),
      ...show("hints duplicated and reordered", hints),
      `evictions: ${evictionRate} per step, and idle ones`,
    ],
  };
}

/** `+1d02:03:04.005` since the start. */
export function clock(ms: number): string {
  const d = Math.floor(ms / 86_400_000);
  const rest = ms - d * 86_400_000;
  const iso = new Date(rest).toISOString().slice(11, 23);
  return `+${d > 0 ? `${d}d` : ""}${iso}`;
}

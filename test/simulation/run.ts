/**
 * One run of the world for one seed: the schedule and its faults until the world is quiet (or the
 * horizon), the checks, then the end of retention and the check that everything was erased.
 */
import type { OnboardingState } from "../../src/onboardings/state";
import { clock as clockOf, type Profile } from "./faults";
import { installGlobals } from "./globals";
import { checkDelivery, checkFollower, checkGiveUp, checkIndex, checkWakes, type Violation } from "./invariants";
import { checkPoisonedLane } from "./lane-invariants";
import { liveChecks } from "./live-checks";
import type { LiveCrowd } from "./live-clients";
import { checkCompiled, checkSubscribers, watchFollowerHead } from "./live-invariants";
import { checkConfirms, checkTells } from "./session-invariants";
import { buildWorld, START } from "./scenario";
import type { IndexHost, World } from "./world";

const DAY = 86_400_000;
/** The world must be quiet this long after the start (the give-up age of three events in a row, and more). */
const HORIZON_MS = 14 * DAY;
/** An alarm this far ahead is retention's: the world is quiet. */
const FAR_MS = 10 * DAY;
/** The follower has this long after the world is quiet to drop what no longer waits and fall asleep. */
const FOLLOWER_GRACE_MS = 90_000;
/** The follower's head is watched this long from the start (its onboardings wait minutes). */
const FOLLOWER_WATCH_MS = 3_600_000;
/** Steps at most in one run: a run that needs more is reported, not waited for. */
const STEP_BUDGET = 5_000_000;
/** …and in a run with the live face's crowd (a live world takes tens of thousands). */
const LIVE_STEP_BUDGET = 400_000;

export interface RunResult {
  seed: number;
  profile: Profile;
  violations: Violation[];
  /** The trace of what the first violation concerns. */
  trace: string[];
  faults: string[];
  steps: number;
  simulatedMs: number;
  /** The world as the run left it (for a closer look at a failing seed). */
  world: World;
}

/**
 * Runs the world of `seed` on `index` (the SQLite the world's D1 uses), the globals under the kernel
 * meanwhile; without `crowds`, a seed that draws a crowd runs a few onboardings instead.
 */
export async function runSeed(seed: number, index: IndexHost, crowds = true, live = false): Promise<RunResult> {
  const budget = live ? LIVE_STEP_BUDGET : STEP_BUDGET;
  const { world, profile, confirms, crowd } = buildWorld(seed, index, crowds, live);
  const restore = installGlobals({
    kernel: world.kernel,
    receiver: world.receiver,
    chain: world.chain,
    nodes: world.nodes,
    faulted: (line) => world.errors.push(`logged an error: ${line}`),
    warned: (line) => {
      const event = /"event":"([^"]+)"/.exec(line)?.[1] ?? line.slice(0, 40);
      world.warnings.set(event, (world.warnings.get(event) ?? 0) + 1);
    },
  });
  try {
    return await runWorld(seed, world, profile, confirms, crowd, budget);
  } finally {
    restore();
  }
}

/** Runs the world until `work` settles (an outside caller's RPCs need the world's steps). */
async function meanwhile<T>(world: World, work: Promise<T>): Promise<T> {
  let done = false;
  const settled = work.finally(() => (done = true));
  while (!done && (await world.kernel.step()));
  return settled;
}

async function runWorld(
  seed: number,
  world: World,
  profile: Profile,
  confirms: Parameters<typeof checkConfirms>[1],
  crowd: LiveCrowd | null,
  stepBudget: number,
): Promise<RunResult> {
  const kernel = world.kernel;
  const violations: Violation[] = liveChecks(world);
  const headWatch = watchFollowerHead(world, START + FOLLOWER_WATCH_MS);
  const horizon = START + HORIZON_MS;

  // Until only retention's alarms (and the follower's own clock) are left.
  let quiet = false;
  while (kernel.steps < stepBudget) {
    if (kernel.steps % 128 === 0) {
      const next = kernel.nextForeground();
      if (next === null || next > kernel.now + FAR_MS) {
        quiet = true;
        break;
      }
    }
    if (!(await kernel.step(horizon))) {
      const next = kernel.nextForeground();
      quiet = next === null || next > kernel.now + FAR_MS;
      break;
    }
  }
  const settledAt = kernel.now;
  const budget = kernel.steps >= stepBudget ? `after ${kernel.steps} steps` : "by the horizon";
  if (!quiet)
    violations.push({
      invariant: "quiet",
      message: `not quiet ${budget}; due: ${dueNow(world)}`,
    });
  await kernel.step(kernel.now);
  const until = kernel.now + FOLLOWER_GRACE_MS;
  while (await kernel.step(until));

  const states = storedStates(world);
  if (crowd) {
    crowd.settle();
    violations.push(...checkSubscribers(world, crowd));
    const compiled = await meanwhile(world, checkCompiled(world));
    if (compiled) violations.push(...compiled);
    else world.trace("live the shards give no account of their compiled queries (no state()): not checked");
  }
  violations.push(
    ...headWatch,
    ...checkDelivery(world, states),
    ...checkIndex(world, states),
    ...checkFollower(world, states),
    ...checkWakes(world, states),
    ...checkGiveUp(world, states, settledAt),
    ...checkPoisonedLane(world, states),
    ...checkConfirms(world, confirms, states),
    ...checkTells(world),
    ...world.errors.map((message) => ({ invariant: "quiet" as const, message })),
  );

  // Retention: the follower is put to sleep (it was checked), everything else runs to the end.
  world.follower.deleteAlarm();
  world.follower.evict("the run ends");
  if (quiet) {
    const end = kernel.now + 40 * DAY;
    while ((await kernel.step(end)) && kernel.steps < stepBudget + 1_000_000);
    for (const [id, object] of world.onboardings.objects) {
      if (object.storage.size > 0 || object.alarm !== null)
        violations.push({ invariant: "erased", message: `${id} still holds storage or an alarm 40 days after` });
    }
    const { rows, events } = world.d1.query<{ rows: number; events: number }>(
      "SELECT (SELECT COUNT(*) FROM onboardings) AS rows, (SELECT COUNT(*) FROM events) AS events",
    )[0]!;
    if (rows > 0 || events > 0)
      violations.push({
        invariant: "erased",
        message: `the index still holds ${rows} rows and ${events} events after every onboarding was erased`,
      });
  }

  return {
    seed,
    profile,
    violations,
    trace: world.traceOf(traceSubjects(violations)),
    faults: [...world.faults.describe(), ...world.live.describe(), ...(crowd ? [crowd.summary()] : [])],
    steps: kernel.steps,
    simulatedMs: settledAt - START,
    world,
  };
}

/** The subjects whose trace explains the first violation: its onboarding, with the lane and the follower. */
function traceSubjects(violations: readonly Violation[]): string[] {
  const first = violations[0]?.message ?? "";
  const client = /^(live_\w+)/.exec(first)?.[1];
  if (client) return [client, "rpc", "feed", "shard", "follower"];
  if (first.startsWith("follower:")) return ["follower", "rpc", "feed"];
  const subject = /^(ob_\d+)/.exec(first)?.[1] ?? /(ob_\d+)/.exec(first)?.[1];
  const session = /(cs_\d+)/.exec(first)?.[1];
  return [...(subject ? [subject] : []), ...(session ? [session] : []), "lane", "follower", "host"];
}

/** Every onboarding's state as stored (the erased ones as they were last). */
function storedStates(world: World): Map<string, OnboardingState> {
  return new Map(world.lastState);
}

function dueNow(world: World): string {
  const due = [...world.onboardings.objects.values()]
    .filter((o) => o.alarm !== null && o.alarm < world.kernel.now + FAR_MS)
    .map((o) => `${o.name} at ${world.at(o.alarm)}`);
  if (world.lane.alarm !== null) due.push(`lane at ${world.at(world.lane.alarm)}`);
  for (const feed of world.feeds.objects.values())
    if (feed.alarm !== null)
      due.push(
        `the live feed at ${world.at(feed.alarm)} (stored: ${[...feed.storage]
          .map(([k, v]) => `${k} ${JSON.stringify(v)}`)
          .join(", ")
          .slice(0, 300)})`,
      );
  for (const node of world.nodes) if (node.open > 0) due.push(`rpc node ${node.index + 1} serves ${node.open} sockets`);
  return due.slice(0, 8).join(", ") || "work in flight";
}

/** A run's report: its faults, what failed and the end of its trace. */
export function report(result: RunResult, traceLines = 40): string {
  const { seed, profile, violations } = result;
  return [
    `seed ${seed}: ${profile.onboardings} onboardings, ${result.steps} steps,` +
      ` ${clockOf(result.simulatedMs)} simulated` +
      (profile.receiverDown === "days" ? ", the receiver is down for days" : "") +
      (profile.receiverDown === "for good" ? ", the receiver dies for good" : "") +
      (profile.refusing ? ", the receiver refuses one onboarding" : "") +
      (profile.unauthorized ? ", the receiver answers 401 to everything" : "") +
      (profile.slowGiveUps ? ", D1 slow around the give-ups" : ""),
    ...result.faults.map((f) => `  fault: ${f}`),
    ...violations.slice(0, 12).map((v) => `  ✗ ${v.invariant}: ${v.message}`),
    ...(violations.length > 12 ? [`  … and ${violations.length - 12} more`] : []),
    "  trace (its onboarding, the lane and the follower; last lines):",
    ...result.trace.slice(-traceLines).map((line) => `    ${line}`),
  ].join("\n");
}

/**
 * What must hold once the world is quiet. Each check returns its violations as sentences, named
 * by the invariant, so a failing seed says what went wrong and for which onboarding.
 */
import { isOnboardingEnded } from "../../src/protocol/index";
import type { OnboardingState, OutboxEvent } from "../../src/onboardings/state";
import { clock } from "./faults";
import type { World } from "./world";

export type Invariant =
  | "delivery"
  | "index"
  | "follower"
  | "wakes"
  | "poisoned-lane"
  | "give-up"
  | "quiet"
  | "erased"
  | "release"
  | "confirm"
  | "refusing-endpoint"
  | "tells"
  | "subscriber"
  | "compiled"
  | "follower-head";

export interface Violation {
  invariant: Invariant;
  /** Begins with the onboarding it concerns (or `follower`, `lane`), whose trace explains it. */
  message: string;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** An event still undelivered this long after its first failed attempt is given up (marked `failed_at`). */
const GIVE_UP_AGE_MS = 3 * DAY;
/** …within this much more: the slowest retry cadence (5 minutes) and a lease, with room to spare. */
const GIVE_UP_SLACK_MS = HOUR;
/**
 * Alarm runs of one onboarding in one hour of its life at most. The busiest legitimate hour is
 * the first: a read of the chain every ONBOARDING_CHECK_SECONDS (6 s: 600 an hour) while it
 * waits, plus the reads a hint starts (one a second for at most 30 s) and its deliveries; 900
 * leaves room for these and still catches an alarm that fires in a loop (3,600 an hour at one a
 * second, far more at "now").
 */
const WAKES_PER_HOUR = 900;
/**
 * From its second day on, an onboarding of this world (its ONBOARDING_TTL is 20 minutes) no longer
 * reads the chain; what may still wake it is an event it cannot deliver. A held event's recheck
 * comes 5 minutes apart at first and slows with its wait (1/12 of it: every 2 hours after a day),
 * and a refused one backs off to hours; the busiest day after the first one came to 32 wake-ups
 * over 300 seeds. 72 in any 24 hours (3 an hour) leaves twice that, and breaks for an onboarding
 * that wakes every 5 minutes for days (288 a day).
 */
const LATE_WAKES_PER_DAY = 72;
const LATE_FROM_HOUR = 24;

const label = (world: World, t: number | null) => (t === null ? "never" : clock(t - world.start));

/** Every event delivered in its onboarding's order, or marked failed. */
export function checkDelivery(world: World, states: Map<string, OnboardingState>): Violation[] {
  const out: Violation[] = [];
  const firstReceipt = new Map<string, number>();
  for (const r of world.receiver.receipts)
    if (r.status >= 200 && r.status < 300 && !firstReceipt.has(r.eventId)) firstReceipt.set(r.eventId, r.at);
  for (const [id, state] of states) {
    for (const [k, event] of state.events.entries()) {
      if (event.delivered_at === null && event.failed_at === null) {
        out.push({
          invariant: "delivery",
          message: `${id}: ${event.type} (${event.id}) neither delivered nor marked failed; ${describeAttempts(event)}`,
        });
      }
      const received = firstReceipt.get(event.id);
      if (received === undefined) continue;
      for (const earlier of state.events.slice(0, k)) {
        const settledAt = Math.min(
          firstReceipt.get(earlier.id) ?? Infinity,
          world.firstGivenUp.get(earlier.id) ?? Infinity,
        );
        if (settledAt > received)
          out.push({
            invariant: "delivery",
            message:
              `${id}: ${event.type} reached the receiver at ${label(world, received)}` +
              ` before ${earlier.type} was delivered or given up`,
          });
      }
    }
  }
  return out;
}

/**
 * The index never holds a mark older than the object's: the list row holds the object's latest
 * version and shows its record; the feed holds each of its events once, in its order, each given up
 * (`failed_at`) exactly when the object says. Read with SQL from the SQLite the world's D1 wrote.
 */
export function checkIndex(world: World, states: Map<string, OnboardingState>): Violation[] {
  const out: Violation[] = [];
  const rows = new Map(
    world.d1
      .query<{ id: string; version: number; onboarding: string }>("SELECT id, version, onboarding FROM onboardings")
      .map((row) => [row.id, row]),
  );
  const feed = world.d1.query<{ id: string; onboarding_id: string; type: string; failed_at: string | null }>(
    "SELECT id, onboarding_id, type, failed_at FROM events ORDER BY seq",
  );
  for (const [id, state] of states) {
    const row = rows.get(id);
    const shows = row ? (JSON.parse(row.onboarding) as { status: string }) : null;
    if (!row) out.push({ invariant: "index", message: `${id}: no list row; the object is ${state.record.status}` });
    else if (row.version !== state.version || shows?.status !== state.record.status)
      out.push({
        invariant: "index",
        message:
          `${id}: the list row shows ${shows?.status} (version ${row.version}),` +
          ` the object is ${state.record.status} (version ${state.version})`,
      });
    const held = feed.filter((e) => e.onboarding_id === id);
    for (const event of state.events) {
      const shown = held.find((e) => e.id === event.id);
      if (shown && shown.failed_at !== event.failed_at)
        out.push({
          invariant: "index",
          message:
            `${id}: the feed shows ${event.type} given up at ${shown.failed_at},` + ` the object at ${event.failed_at}`,
        });
    }
    const ids = held.map((e) => e.id);
    const events = state.events.map((e) => e.id);
    if (ids.join() !== events.join()) {
      const missing = state.events.filter((e) => !ids.includes(e.id)).map((e) => e.type);
      out.push({
        invariant: "index",
        message:
          `${id}: the feed holds ${ids.length} of its ${events.length} events` +
          (missing.length ? ` (missing ${missing.join(", ")})` : " out of order"),
      });
    }
  }
  return out;
}

/** The follower's registrations are the onboardings still waiting for the chain, and it sleeps when none does. */
export function checkFollower(world: World, states: Map<string, OnboardingState>): Violation[] {
  const out: Violation[] = [];
  const waiting = [...states].filter(([, s]) => s.record.payout !== null && !isOnboardingEnded(s.record.status));
  const want = new Set(waiting.map(([id]) => id));
  const follower = world.follower;
  const registered = new Set(
    [...follower.storage.keys()].filter((k) => k.startsWith("w:")).map((k) => k.slice("w:".length)),
  );
  for (const id of registered)
    if (!want.has(id))
      out.push({
        invariant: "follower",
        message: `${id} is still registered with the follower, though it is ${states.get(id)?.record.status ?? "gone"}`,
      });
  for (const id of want)
    if (!registered.has(id))
      out.push({ invariant: "follower", message: `${id} waits, but the follower does not know it` });
  if (want.size === 0 && follower.alarm !== null)
    out.push({
      invariant: "follower",
      message: `nothing waits, yet the follower is awake (alarm at ${label(world, follower.alarm)})`,
    });
  return out;
}

/** Alarm runs per onboarding stay within the bounds above. */
export function checkWakes(world: World, states: Map<string, OnboardingState>): Violation[] {
  const out: Violation[] = [];
  for (const [id, times] of world.wakes) {
    const state = states.get(id);
    if (!state) continue;
    const created = Date.parse(state.record.created_at);
    const perHour = new Map<number, number[]>();
    for (const t of times) {
      const hour = Math.floor((t - created) / HOUR);
      perHour.set(hour, [...(perHour.get(hour) ?? []), t]);
    }
    for (const [hour, woke] of perHour)
      if (woke.length > WAKES_PER_HOUR)
        out.push({
          invariant: "wakes",
          message: `${id} woke ${woke.length} times in hour ${hour} of its life (bound ${WAKES_PER_HOUR})`,
        });
    const late = times.filter((t) => t >= created + LATE_FROM_HOUR * HOUR);
    const day = busiestDay(late);
    if (day.count > LATE_WAKES_PER_DAY)
      out.push({
        invariant: "wakes",
        message:
          `${id} woke ${day.count} times in the 24 hours from ${label(world, day.from)}, after its first day` +
          ` (bound ${LATE_WAKES_PER_DAY}: ${describeWakes(
            world,
            late.filter((t) => t >= day.from),
          )});` +
          ` at the end it is ${state.record.status}, ${pendingSummary(state)}`,
      });
  }
  return out;
}

/** The most wake-ups in any 24 hours of `times` (ascending), and when those 24 hours begin. */
function busiestDay(times: readonly number[]): { count: number; from: number } {
  let best = { count: 0, from: 0 };
  let j = 0;
  for (let i = 0; i < times.length; i++) {
    while (times[i]! - times[j]! >= DAY) j++;
    if (i - j + 1 > best.count) best = { count: i - j + 1, from: times[j]! };
  }
  return best;
}

function pendingSummary(state: OnboardingState): string {
  const pending = state.events.filter((e) => e.delivered_at === null && e.failed_at === null);
  return pending.length === 0
    ? "every event settled"
    : `${pending.length} event(s) pending (${describeAttempts(pending[0]!)})`;
}

/**
 * Giving up: never before GIVE_UP_AGE_MS after the event's first failed attempt or first hold (the
 * object's own rule, counted here from what the world saw), never without an attempt of its own
 * (an event the lane never let try was never seen to fail), and an undelivered event is given up no
 * later than GIVE_UP_AGE_MS + GIVE_UP_SLACK_MS after that.
 */
export function checkGiveUp(world: World, states: Map<string, OnboardingState>, now: number): Violation[] {
  const out: Violation[] = [];
  for (const [id, state] of states)
    for (const event of state.events) {
      const first = world.firstTrouble.get(event.id) ?? null;
      if (event.failed_at !== null && event.attempts.length === 0)
        out.push({
          invariant: "give-up",
          message:
            `${id}: ${event.type} was given up at ${label(world, Date.parse(event.failed_at))} without an attempt` +
            ` of its own (held from ${label(world, first)})`,
        });
      if (first === null || event.delivered_at !== null) continue;
      const end = event.failed_at !== null ? Date.parse(event.failed_at) : now;
      if (event.failed_at !== null && end - first < GIVE_UP_AGE_MS)
        out.push({
          invariant: "give-up",
          message:
            `${id}: ${event.type} first failed or was held at ${label(world, first)}` +
            ` and was given up already at ${label(world, end)}`,
        });
      if (end - first > GIVE_UP_AGE_MS + GIVE_UP_SLACK_MS)
        out.push({
          invariant: "give-up",
          message:
            `${id}: ${event.type} first failed or was held at ${label(world, first)} and is ` +
            (event.failed_at ? `given up only at ${label(world, end)}` : `still not given up at ${label(world, now)}`) +
            `; ${describeAttempts(event)}`,
        });
    }
  return out;
}

/** An event's attempts in a few words. */
export function describeAttempts(event: OutboxEvent): string {
  const n = event.attempts.length;
  if (n === 0) return "no attempt";
  const show = (a: OutboxEvent["attempts"][number]) => ("status" in a ? String(a.status) : a.error.slice(0, 20));
  const first = event.attempts[0]!;
  const last = event.attempts[n - 1]!;
  return (
    `${n} attempt${n === 1 ? "" : "s"} (first ${first.at.slice(5, 19)} ${show(first)},` +
    ` last ${last.at.slice(5, 19)} ${show(last)})`
  );
}

function describeWakes(world: World, times: number[]): string {
  const shown = times.slice(0, 4).map((t) => label(world, t));
  return `${shown.join(", ")}${times.length > 4 ? `, … ${label(world, times[times.length - 1]!)}` : ""}`;
}

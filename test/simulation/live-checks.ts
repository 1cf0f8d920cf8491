/**
 * The invariants checked while the world runs, at the moment they concern: held events go out soon
 * after the receiver answers again, and a receiver refusing everything shows as a failing endpoint.
 */
import type { Invariant, Violation } from "./invariants";
import type { Receipt } from "./services";
import type { World } from "./world";

/** Held events are delivered within this long of the receiver's first 2xx after an outage. */
const RELEASE_MS = 15_000;
/** A receiver that refuses every event shows as failing (`failing_since`) within this long of its first refusal. */
const REFUSING_VISIBLE_MS = 60_000;
/** How long the work an object started may take before its alarm tries again (src/onboardings/machine.ts). */
const WORK_LEASE_MS = 30_000;

/**
 * What the index holds of onboarding `id` that is older than what the object knows it holds: its
 * row's version below the object's `indexed_version`, or, once the object holds every change
 * indexed, an event's given-up mark other than the object's. Null when nothing is.
 */
function indexBehind(world: World, id: string): string | null {
  const state = world.lastState.get(id)!;
  const row = world.d1.query<{ version: number }>("SELECT version FROM onboardings WHERE id = ?", id)[0];
  if (!row || row.version < state.indexed_version)
    return (
      `the list row holds version ${row?.version ?? "none"},` +
      ` the object knows version ${state.indexed_version} landed`
    );
  if (state.indexed_version < state.version) return null;
  const marks = new Map(
    world.d1
      .query<{ id: string; failed_at: string | null }>("SELECT id, failed_at FROM events WHERE onboarding_id = ?", id)
      .map((e) => [e.id, e.failed_at]),
  );
  for (const event of state.events) {
    const shown = marks.get(event.id);
    if (shown !== undefined && shown !== event.failed_at)
      return (
        `the feed shows ${event.type} given up at ${shown},` +
        ` the object (version ${state.version}, all indexed) at ${event.failed_at}`
      );
  }
  return null;
}

/** Installs the checks on the world's receiver; the violations land in the array returned. */
export function liveChecks(world: World): Violation[] {
  const out: Violation[] = [];
  const { kernel, faults } = world;
  const say = (invariant: Invariant, message: string) => out.push({ invariant, message });
  let refusingChecked = false;
  const refusals = () => world.receiver.receipts.filter((r) => r.status === 401).length;
  let indexReported = false;
  world.d1.onLanded = (id) => {
    const state = world.lastState.get(id);
    if (indexReported || !state || state.indexed_version === 0 || !world.stored(id)) return;
    const message = indexBehind(world, id);
    if (message === null) return;
    indexReported = true;
    say("index", `${id}: ${message} (a write landed at ${world.at(kernel.now)})`);
  };
  // The endpoint's refusals are told from one onboarding's own once they span two onboardings (docs/HOSTS.md): from
  // the first 401 to a second onboarding, the endpoint must show as failing within a minute.
  const refusedOnboardings = new Set<string>();
  world.receiver.onReceipt = (receipt: Receipt) => {
    if (receipt.status === 401) refusedOnboardings.add(receipt.onboarding);
    if (receipt.status === 401 && refusedOnboardings.size >= 2 && !refusingChecked) {
      refusingChecked = true;
      kernel.after(REFUSING_VISIBLE_MS, () => {
        if (world.laneState()?.failing_since == null)
          say(
            "refusing-endpoint",
            `lane: the receiver has answered 401 to two onboardings' events since ${world.at(receipt.at)},` +
              ` and a minute later the endpoint still shows no failing_since (${refusals()} refusals so far)`,
          );
      });
    }
    if (receipt.status < 200 || receipt.status >= 300) return;
    const lane = world.laneState();
    if (lane?.failing_since == null) return;
    // The receiver answers again: every event held now must be delivered within RELEASE_MS.
    const held = [...world.lastState.values()].flatMap((state) =>
      state.events
        .filter((e) => e.held !== null && e.delivered_at === null && e.failed_at === null)
        .map((e) => ({ onboarding: state.record.id, event: e.id, type: e.type })),
    );
    const from = kernel.now;
    kernel.after(RELEASE_MS, () => {
      // Not while the receiver failed again, nor for the one onboarding it refuses; after an eviction, within a work
      // lease (30 s) before or meanwhile, the lease is the design.
      if (faults.receiverFaultDuring(from, kernel.now)) return;
      // Nor while a slow D1 write was in flight: an alarm's round waits for all its work, the index write included.
      if (world.d1.slowDuring(from, kernel.now)) return;
      const evicted = (times: readonly number[]) => times.some((t) => t >= from - WORK_LEASE_MS && t <= kernel.now);
      if (evicted(world.lane.evictions)) return;
      for (const h of held) {
        if (faults.refused?.onboarding === h.onboarding) continue;
        if (evicted(world.onboardings.object(h.onboarding).evictions)) continue;
        const now = world.lastState.get(h.onboarding)?.events.find((e) => e.id === h.event);
        if (!now || now.delivered_at !== null || now.failed_at !== null) continue;
        say(
          "release",
          `${h.onboarding}: ${h.type} was held when the receiver answered again at ${world.at(from)},` +
            ` and is still not delivered ${RELEASE_MS / 1000} s later`,
        );
      }
    });
  };
  return out;
}

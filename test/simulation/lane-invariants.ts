/**
 * What must hold of the webhook's lane while the receiver refuses one onboarding's events: no
 * outage, and no other onboarding held back.
 */
import type { OnboardingState } from "../../src/onboardings/state";
import { MAX_PROBE_MS } from "../../src/webhooks/lane-state";
import { clock } from "./faults";
import { describeAttempts, type Violation } from "./invariants";
import type { World } from "./world";

/** A receiver refusing one onboarding's events delays another onboarding's event by at most this. */
const OTHERS_DELAY_MS = 2_000;

const label = (world: World, t: number) => clock(t - world.start);

/**
 * A receiver that refuses one onboarding's events puts the lane into no outage, and delays no other
 * onboarding: an event of another onboarding goes within OTHERS_DELAY_MS of being its onboarding's
 * next, unless the receiver failed for everyone lately, or the onboarding or the lane was evicted
 * meanwhile.
 */
export function checkPoisonedLane(world: World, states: Map<string, OnboardingState>): Violation[] {
  const refused = world.faults.refused;
  if (!refused) return [];
  const out: Violation[] = [];
  // The lane holds everyone only while the endpoint fails for everyone (an attempt's timeout before, at most).
  for (const t of world.laneOutages)
    if (!world.faults.receiverFaultDuring(t - 11_000, t))
      out.push({
        invariant: "poisoned-lane",
        message: `lane: an outage began at ${label(world, t)}, while the receiver refused only ${refused.onboarding}`,
      });
  const laneEvictions = world.lane.evictions;
  for (const [id, state] of states) {
    if (id === refused.onboarding) continue;
    const object = world.onboardings.object(id);
    let ready = -Infinity;
    for (const event of state.events) {
      ready = Math.max(ready, Date.parse(event.created_at));
      const done =
        event.delivered_at !== null
          ? Date.parse(event.delivered_at)
          : event.failed_at
            ? Date.parse(event.failed_at)
            : null;
      const from = ready;
      ready = done ?? Infinity;
      if (done === null || event.delivered_at === null || from < refused.from) continue;
      // A slow D1 delays the next event too (an alarm's round waits for all its work, the index write included).
      const disturbed =
        world.faults.d1SlowDuring(from, done) ||
        world.faults.receiverFaultDuring(from - MAX_PROBE_MS - 60_000, done) ||
        [...object.evictions, ...laneEvictions].some((t) => t >= from - 60_000 && t <= done);
      if (!disturbed && done - from > OTHERS_DELAY_MS)
        out.push({
          invariant: "poisoned-lane",
          message:
            `${id}: ${event.type} waited ${((done - from) / 1000).toFixed(1)} s (from ${label(world, from)})` +
            ` while the receiver refused only ${refused.onboarding}; ${describeAttempts(event)}`,
        });
    }
  }
  return out;
}

/**
 * What a seed makes happen: how many onboardings, when each is created, paired, authorized on
 * chain, applied by its node or cancelled by the host, and which faults hit the world meanwhile.
 */
import type { MachineRules, OnboardingEvent } from "../../src/onboardings/machine";
import type { OnboardingView } from "../../src/protocol/index";
import { planFaults, type Profile } from "./faults";
import { Incarnation, Kernel, Random } from "./kernel";
import { World } from "./world";

const SECOND = 1000;
const MINUTE = 60 * SECOND;

/**
 * The deployment the world runs: ONBOARDING_CHECK_SECONDS as default, a 10-minute ONBOARDING_TTL
 * (the customers of this world act within minutes; a short life keeps each run short, since the
 * follower reads the head once a second while anyone waits).
 */
const CHECK_MS = 6 * SECOND;
const TTL_MS = 10 * MINUTE;

/** 2026-11-25T00:00:00Z: any fixed start will do. */
export const START = Date.UTC(2026, 10, 25);

/**
 * What a seed's world is like: mostly a few onboardings under passing faults; one in fifty with a
 * receiver down for days; one in five with a receiver refusing one onboarding's events; and, one
 * in fifty, a crowd of hundreds held by a receiver dead for good (seconds of work each: without
 * `crowds`, such a seed runs a few onboardings instead).
 */
function chooseProfile(random: Random, crowds = true): Profile {
  const r = random.next();
  if (r < 0.02) {
    const onboardings = crowds ? random.int(100, 400) : random.int(1, 6);
    return { onboardings, receiverDown: crowds ? "for good" : "days", refusing: false };
  }
  if (r < 0.04) return { onboardings: random.int(1, 6), receiverDown: "days", refusing: false };
  if (r < 0.24) return { onboardings: random.int(2, 6), receiverDown: null, refusing: true };
  return { onboardings: random.int(1, 6), receiverDown: null, refusing: false };
}

function machineRulesFor(seed: number): MachineRules {
  let n = 0;
  return {
    present: (record) => {
      const { origin: _origin, ...fields } = record;
      return { ...fields, url: `https://edge.test/?onboarding=${record.id}` } as OnboardingView;
    },
    mintEventId: () => `msg_${seed.toString(16)}_${++n}`,
    checkMs: CHECK_MS,
    ttlMs: TTL_MS,
    delivering: true,
  };
}

/** Builds the world of `seed` with its whole schedule queued. */
export function buildWorld(seed: number, crowds = true): { world: World; profile: Profile } {
  const random = new Random(seed);
  const kernel = new Kernel(START, random);
  const profile = chooseProfile(random, crowds);
  const ids = Array.from({ length: profile.onboardings }, (_, i) => `ob_${i + 1}`);
  const faults = planFaults(random, START, profile, ids);
  const world = new World(kernel, START, faults, machineRulesFor(seed));
  // The Worker and the customers: an outside caller that is never evicted.
  const outside = new Incarnation();
  const call = (at: number, id: string, what: string, event: OnboardingEvent) =>
    kernel.at(at, () => {
      world.trace(`${id} ${what}`);
      kernel.spawn(
        outside,
        world.toOnboarding(id, (o) => o.call(event)),
      );
    });
  const spread = profile.onboardings > 20 ? 10 * MINUTE : 3 * MINUTE;
  for (const [i, id] of ids.entries()) {
    const operator = `hope1operator${i + 1}`;
    const created = START + random.int(0, spread);
    call(created, id, "created", {
      type: "create",
      onboarding: {
        id,
        operator,
        label: "",
        reference: `order-${i + 1}`,
        origin: "https://edge.test",
        return_url: null,
      },
    });
    if (random.chance(0.1)) call(created + random.int(0, TTL_MS), id, "cancelled by the host", { type: "cancel" });
    for (let r = random.int(0, 2); r > 0; r--) call(created + random.int(0, 2 * TTL_MS), id, "read", { type: "read" });
    if (!random.chance(0.9)) continue;
    const paired = created + random.int(5 * SECOND, 2 * MINUTE);
    const payout = random.chance(0.1) ? operator : `hope1payout${i + 1}`;
    call(paired, id, `paired with ${payout}`, { type: "pair", payout: { address: payout, source: "relay" } });
    let next = paired;
    if (payout !== operator) {
      if (!random.chance(0.85)) continue;
      next = paired + random.int(5 * SECOND, 2 * MINUTE);
      kernel.at(next, () => world.trace(`${id} authorization in block ${world.chain.authorize(payout, operator)}`));
    }
    if (!random.chance(0.85)) continue;
    const applied = next + random.int(5 * SECOND, 3 * MINUTE);
    kernel.at(applied, () =>
      world.trace(`${id} node pays ${payout} from block ${world.chain.applyNode(operator, payout)}`),
    );
  }
  return { world, profile };
}

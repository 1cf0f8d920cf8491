/**
 * What must hold of the pairing sessions once the world is quiet: the wallet's answer agrees with
 * the onboarding, and a lost tell is retried backing off.
 */
import type { OnboardingState } from "../../src/onboardings/state";
import { clock } from "./faults";
import type { Violation } from "./invariants";
import type { Confirm } from "./scenario";
import type { World } from "./world";

const label = (world: World, t: number) => clock(t - world.start);

/**
 * A pairing session retries a lost tell backing off (1 s, doubling): at most TELLS_PER_WINDOW alarm
 * runs in any TELL_WINDOW_MS (a 5-minute loss takes about 9 with the back-off, 300 at one a second).
 */
const TELLS_PER_WINDOW = 20;
const TELL_WINDOW_MS = 10 * 60_000;

export function checkTells(world: World): Violation[] {
  const out: Violation[] = [];
  for (const [session, times] of world.sessionWakes) {
    let j = 0;
    for (let i = 0; i < times.length; i++) {
      while (times[i]! - times[j]! >= TELL_WINDOW_MS) j++;
      if (i - j + 1 <= TELLS_PER_WINDOW) continue;
      out.push({
        invariant: "tells",
        message:
          `${session} woke ${i - j + 1} times in 10 minutes from ${label(world, times[j]!)}` +
          ` (bound ${TELLS_PER_WINDOW})`,
      });
      break;
    }
  }
  return out;
}

/** The wallet's confirm answer agrees with the onboarding: 200 only when the onboarding took this wallet. */
export function checkConfirms(world: World, confirms: readonly Confirm[], states: Map<string, OnboardingState>) {
  const out: Violation[] = [];
  for (const c of confirms) {
    if (c.status !== 200) continue;
    const record = states.get(c.onboarding)?.record;
    if (record?.payout === c.address) continue;
    out.push({
      invariant: "confirm",
      message:
        `${c.onboarding}: the wallet ${c.address} was answered 200 at ${label(world, c.at)} (${c.session}), but the` +
        ` onboarding is ${record?.status ?? "gone"}, paid to ${record?.payout ?? "nobody"}`,
    });
  }
  return out;
}

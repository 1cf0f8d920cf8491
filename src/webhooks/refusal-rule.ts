/**
 * When refusals are the endpoint's, not one event's: a receiver that answers a wrong path (404), a
 * rotated secret (401, 403) or a removed endpoint (410) refuses every event of every onboarding,
 * and must show as failing rather than let each event be given up quietly. The rule: 4 refusals in
 * a row (a 4xx other than 408 and 429) from at least 2 different onboardings, with no 2xx between.
 * One onboarding's refusals alone never count as the endpoint's (a receiver refusing one customer's
 * events must not stop the others): they back off on their own schedule.
 */

/** The refusals in a row the lane has heard of since the last 2xx, and from which onboardings (the first two). */
export interface Refusals {
  count: number;
  onboardings: string[];
}

export const NO_REFUSALS: Refusals = { count: 0, onboardings: [] };

/** Refusals in a row, with no 2xx between, that make the endpoint failing… */
const REFUSALS_IN_A_ROW = 4;
/** …when they come from at least this many onboardings. */
const REFUSING_ONBOARDINGS = 2;

/** `refusals` with one more, from `onboarding`. */
export function countRefusal(refusals: Refusals, onboarding: string): Refusals {
  const known = refusals.onboardings.includes(onboarding) || refusals.onboardings.length >= REFUSING_ONBOARDINGS;
  return {
    count: refusals.count + 1,
    onboardings: known ? refusals.onboardings : [...refusals.onboardings, onboarding],
  };
}

/** True once the refusals are the endpoint's: it refuses every event, whichever onboarding sends it. */
export function refusesEverything(refusals: Refusals): boolean {
  return refusals.count >= REFUSALS_IN_A_ROW && refusals.onboardings.length >= REFUSING_ONBOARDINGS;
}

/** The endpoint's last error while it refuses everything: the receiver's answer, and that it is every event's. */
export function refusingError(error: string): string {
  return `${error} to every event`;
}

/** Which onboardings wait longer than a host would expect: the marker of the list. */

const HOUR_MS = 3_600_000;

/**
 * How long a host expects each waiting status to last: a customer connects within a day of the
 * link; the authorization follows the connection within an hour; an authorized onboarding waits
 * for the host's own node, which its automation applies within an hour.
 */
const EXPECTED_WAIT_MS: Record<string, number> = {
  open: 24 * HOUR_MS,
  connected: HOUR_MS,
  authorized: HOUR_MS,
};

/** True when `onboarding` has been in its waiting status (since `updated_at`) longer than expected at `now`. */
export function waitsTooLong(onboarding: { status: string; updated_at: string }, now: number): boolean {
  const expected = EXPECTED_WAIT_MS[onboarding.status];
  return expected !== undefined && now - Date.parse(onboarding.updated_at) > expected;
}

/**
 * The onboarding's clocks: how often the chain is read while it waits, when an owed write is
 * retried, and how long an ended onboarding is kept. When an event is tried again or given up is
 * the webhooks' delivery policy (src/webhooks/delivery-policy.ts).
 */

/** Checks keep their base interval this long after a change, then slow down. */
const STEADY_MS = 30 * 60_000;
/** The longest wait between two checks. */
const MAX_CHECK_MS = 5 * 60_000;

/** While the chain follower hints every block that names the onboarding, its own check is this slow safety net. */
const SAFETY_NET_MS = 10 * 60_000;

/**
 * Milliseconds until the next read of the chain: `baseMs` (ONBOARDING_CHECK_SECONDS) for 30
 * minutes after the last change, then 1/300 of the time waited (12 s after an hour, 1 min after
 * five), at most 5 minutes; 10 minutes while the chain follower is `following`.
 */
export function checkDelayMs(sinceChangeMs: number, baseMs: number, following = false): number {
  if (following) return SAFETY_NET_MS;
  if (sinceChangeMs <= STEADY_MS) return baseMs;
  return Math.min(Math.max(baseMs, Math.round(sinceChangeMs / 300)), MAX_CHECK_MS);
}

/**
 * Waits before an owed write (the index's row, an `unwatch`) is tried again after `failures` failed ones: 5 s,
 * doubling, at most 5 minutes.
 */
export function owedRetryDelayMs(failures: number): number {
  return Math.min(5_000 * 2 ** Math.max(0, failures - 1), 5 * 60_000);
}

/** An ended onboarding (its events delivered or given up) is deleted this long after it ended. */
export const RETENTION_MS = 30 * 86_400_000;

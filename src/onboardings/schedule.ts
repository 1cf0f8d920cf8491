/**
 * The onboarding's clocks: how often the chain is read while it waits, when a held event asks its
 * lane again and when one is given up, and how long an ended onboarding is kept.
 */

/** Checks keep their base interval this long after a change, then slow down. */
const STEADY_MS = 30 * 60_000;
/** The longest wait between two checks. */
const MAX_CHECK_MS = 5 * 60_000;

/** While the chain follower hints every block that names the onboarding, its own check is this slow safety net. */
export const SAFETY_NET_MS = 10 * 60_000;

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
 * Delivery is given up only after at least this many attempts spanning at least this long since the event's first
 * failed attempt.
 */
export const MIN_ATTEMPTS = 8;
export const MIN_RETRY_SPAN_MS = 24 * 3_600_000;

/**
 * A held event asks its lane again after this long if no release has come (a safety net: the lane releases it when the
 * endpoint answers).
 */
export const HELD_RECHECK_MS = 5 * 60_000;

/** An ended onboarding (its events delivered or given up) is deleted this long after it ended. */
export const RETENTION_MS = 30 * 86_400_000;

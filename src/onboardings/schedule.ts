/**
 * The onboarding's clocks: how often the chain is read while it waits, how webhook retries back
 * off, and how long an ended onboarding is kept.
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

/** Waits after the 1st, 2nd, … failed attempt; the last one repeats. */
const RETRY_DELAYS_MS = [5_000, 30_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000];
/** Delivery is given up only after at least this many attempts spanning at least this long. */
export const MIN_ATTEMPTS = 8;
export const MIN_RETRY_SPAN_MS = 24 * 3_600_000;

/**
 * When to try again after `attempts` failed attempts, the first at `firstAt`; null when the
 * event is given up (at least 8 attempts over at least 24 hours: 0 s, 5 s, 35 s, 5.6 min,
 * 36 min, 2.6 h, 7.6 h, 17.6 h, 27.6 h).
 */
export function nextAttemptAt(attempts: number, firstAt: number, now: number): number | null {
  if (attempts >= MIN_ATTEMPTS && now - firstAt >= MIN_RETRY_SPAN_MS) return null;
  return now + RETRY_DELAYS_MS[Math.min(attempts, RETRY_DELAYS_MS.length) - 1]!;
}

/** An ended onboarding (its events delivered or given up) is deleted this long after it ended. */
export const RETENTION_MS = 30 * 86_400_000;

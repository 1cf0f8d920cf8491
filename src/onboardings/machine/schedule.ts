/**
 * The onboarding's clocks: how often the chain is read while it waits, when a refused or held event
 * is tried again and when one is given up, when an owed write is retried, and how long an ended
 * onboarding is kept.
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
 * An event is given up (marked `failed_at`) once it is still undelivered this long after its first
 * failed attempt, however many attempts that was (Stripe retries for 3 days; Svix for about as long).
 */
export const GIVE_UP_AFTER_MS = 3 * 86_400_000;

/**
 * An event the receiver alone refused (a 4xx other than 408 and 429) is tried again on its own
 * schedule, like Svix's: 5 s, 5 min, 30 min, 2 h, 5 h, then every 10 h, until it is given up.
 */
const EVENT_RETRY_MS = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000];

/** Milliseconds until an event refused `failures` times (1 or more) is tried again. */
export function eventRetryDelayMs(failures: number): number {
  return EVENT_RETRY_MS[Math.min(Math.max(failures, 1), EVENT_RETRY_MS.length) - 1]!;
}

/**
 * A held event asks its lane again after this long at first if no release has come (a safety net: the lane releases
 * it)…
 */
const HELD_RECHECK_MS = 5 * 60_000;
/** …then 1/12 of the time it has waited (1 h after 12 h), at most this long. */
const MAX_HELD_RECHECK_MS = 6 * 3_600_000;

/** Milliseconds until a held event asks its lane again, `waited` after it first failed or was held. */
export function heldRecheckMs(waited: number): number {
  return Math.min(Math.max(HELD_RECHECK_MS, Math.round(waited / 12)), MAX_HELD_RECHECK_MS);
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

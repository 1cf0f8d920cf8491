/**
 * The webhooks' delivery policy: how long an event is tried before it is given up, when an event
 * the receiver alone refused is tried again, and how often a held event asks its lane again.
 */

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

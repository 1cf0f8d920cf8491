/**
 * What one Onboarding Durable Object stores, as one value written in one put: the onboarding, its
 * outbox of events for the host, and how it watches the chain. A status change and the event that
 * reports it are therefore always written together.
 */
import type { OnboardingEventType, OnboardingView } from "../protocol/index";

/**
 * The onboarding's own fields: what the host sees, less what is derived when it is shown (its url
 * and commands), plus this service's origin when the host created it (the customer's page lives there).
 */
export type OnboardingRecord = Omit<OnboardingView, "url" | "commands"> & { origin: string };

/** One delivery attempt as the events log shows it: the receiver's status, or why there was none. */
export type DeliveryAttempt = { at: string; ms: number } & ({ status: number } | { error: string });

/** An event for the host: its exact body (the same on every attempt) and every attempt to deliver it. */
export interface OutboxEvent {
  /** `webhook-id`: unique per event, the same on every retry. */
  id: string;
  type: OnboardingEventType;
  created_at: string;
  body: string;
  delivered_at: string | null;
  /** Set once it is given up (3 days after its first failure: src/webhooks/delivery-policy.ts); a retry clears it. */
  failed_at: string | null;
  /** When its first attempt failed or it was first held by a failing endpoint (ms): giving up counts from here. */
  first_failed_at: number | null;
  /** When the onboarding next asks the lane to attempt it (ms since the epoch); null once delivered or given up. */
  next_attempt_at: number | null;
  /**
   * Held back while the endpoint fails (since when, and its last error): the lane releases it when it answers again.
   */
  held: { failing_since: number; last_error: string | null } | null;
  attempts: DeliveryAttempt[];
}

/** How the object watches the chain for this onboarding. */
interface ChainWatch {
  /** When the next read of the chain is due (ms); null while nothing is awaited from the chain. */
  next_check_at: number | null;
  /** The last status change (ms): checks slow down after 30 minutes without one. */
  changed_at: number;
  /** A transaction hash the wallet app returned for the authorization, not yet found on chain. */
  claimed_txhash: string | null;
  /** The highest block height each reading has answered at: a lower answer is older news and is ignored. */
  heights: { authorizations: number; node: number };
  /**
   * True while the network's chain follower reads every block and hints this onboarding when one
   * names it: its own checks are then a slow safety net.
   */
  following: boolean;
  /**
   * A block at `height` named this onboarding (the hint came at `at`, ms): until a reading answers
   * at that height or above, the state read is older than the block and is read again shortly.
   */
  hinted: { height: number; at: number } | null;
  /** True from the first registration with the chain follower until an `unwatch` reached it. */
  registered: boolean;
  /** The `unwatch` owed once the onboarding no longer waits while `registered`; null when none is. */
  unfollow: Owed | null;
}

/**
 * A write owed to another system (the index, the chain follower), kept in the state it belongs to so
 * that a restart at any point resumes it: due at `at`, which is also the lease of an attempt under way.
 */
export interface Owed {
  at: number;
  /** Failed attempts in a row: each failure waits longer (src/onboardings/machine/schedule.ts `owedRetryDelayMs`). */
  failures: number;
}

export interface OnboardingState {
  /** Grows by one with every change the index shows: the record, a new event, an event given up or resent. */
  version: number;
  /** The version the index is known to hold (0: none yet); below `version`, a write is owed. */
  indexed_version: number;
  /** The index write (or, once retention is over, the deletion of the rows) owed; null when none is. */
  index_write: Owed | null;
  /** When the webhook's lane last released this onboarding (ms): a "wait" it answered before that is out of date. */
  released_at: number | null;
  record: OnboardingRecord;
  events: OutboxEvent[];
  watch: ChainWatch;
}

/** A state stored before the fields of this version existed, as it reads now (the index is written again). */
export function upgradeState(stored: OnboardingState): OnboardingState {
  const events = stored.events.map((event) => ({
    ...event,
    held: event.held ? { ...event.held, last_error: event.held.last_error ?? null } : null,
    first_failed_at: event.first_failed_at ?? (event.attempts[0] ? Date.parse(event.attempts[0].at) : null),
  }));
  const { watch } = stored;
  return {
    ...stored,
    version: stored.version ?? 1,
    indexed_version: stored.indexed_version ?? 0,
    index_write: stored.index_write ?? null,
    released_at: stored.released_at ?? null,
    events,
    watch: {
      ...watch,
      following: watch.following ?? false,
      hinted: watch.hinted ?? null,
      registered: watch.registered ?? false,
      unfollow: watch.unfollow ?? null,
    },
  };
}

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
  /** Set when the last attempt failed and no more are made. */
  failed_at: string | null;
  /** When the onboarding next asks the lane to attempt it (ms since the epoch); null once delivered or given up. */
  next_attempt_at: number | null;
  /** Held back while the endpoint fails (since when): the lane releases it when the endpoint answers again. */
  held: { failing_since: number } | null;
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
}

export interface OnboardingState {
  /** Grows by one with every change of the record or its events (the index's row version). */
  version: number;
  /** When the webhook's lane last released this onboarding (ms): a "wait" it answered before that is out of date. */
  released_at: number | null;
  record: OnboardingRecord;
  events: OutboxEvent[];
  watch: ChainWatch;
}

/** A state stored before `version`, `following`, `hinted` and `held` existed, as it reads now. */
export function upgradeState(stored: OnboardingState): OnboardingState {
  const events = stored.events.map((event) => ({ ...event, held: event.held ?? null }));
  return {
    ...stored,
    version: stored.version ?? 1,
    released_at: stored.released_at ?? null,
    events,
    watch: { ...stored.watch, following: stored.watch.following ?? false, hinted: stored.watch.hinted ?? null },
  };
}

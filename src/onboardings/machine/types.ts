/**
 * What the onboarding's machine (./index.ts) takes and gives: its events, its effects, the rules it
 * needs from the deployment, and what a reading of the chain found.
 */
import type { Answer } from "../../http/answer";
import type { OnboardingView, PayoutSource } from "../../protocol/index";
import type { OnboardingRow } from "../index/store";
import type { DeliveryTurn } from "../outbox";
import type { OnboardingRecord, OnboardingState, OutboxEvent } from "../state";

/** What a host's create stores, already validated. */
export interface NewOnboarding {
  id: string;
  operator: string;
  label: string;
  reference: string | null;
  origin: string;
  return_url: string | null;
}

/** What the customer's page says its wallet paired: a relayed pairing session, or the wallet app's bridge. */
export type PairedPayout = { sessionId: string } | { address: string; source: "in_app" };

/**
 * A claimed authorization transaction, once a block holds it: who signed its authorization, or why it authorizes
 * nothing.
 */
export type TxReading = { txhash: string } & ({ signer: string; height: number | null } | { unrelated: string });

/** What a reading of the chain found; each part at the block height it was answered at. */
export interface ChainReading {
  /** `operator_authorizations/<payout>` listed the operator (or not). */
  authorizations?: { listed: boolean; height: number | null };
  /** `node/<operator>`'s payout recipient (null: no such node yet). */
  node?: { payoutRecipient: string | null; height: number | null };
  /** The claimed authorization transaction, found in a block. */
  tx?: TxReading;
}

export type OnboardingEvent =
  | { type: "create"; onboarding: NewOnboarding }
  /** Any read: the host's view, the customer's, the events log. */
  | { type: "read" }
  | { type: "cancel" }
  /** The payout the wallet paired (a relayed session's address is read from the session first). */
  | { type: "pair"; payout: { address: string; source: PayoutSource } }
  /** The wallet app returned the authorization's transaction hash. */
  | { type: "claim"; txhash: string }
  /** What the lookup of a claimed transaction found (`tx` absent: no block holds it yet). */
  | { type: "verified"; tx?: TxReading }
  /** The chain follower: a block at `height` named this onboarding, or the follower's health changed. */
  | { type: "hint"; height: number; following: boolean }
  /** The chain follower's answer to this onboarding's registration: whether it may rely on it. */
  | { type: "followed"; following: boolean }
  /** The alarm: whatever is due now. */
  | { type: "wake" }
  /** A read of the chain begun at `since` found `reading`. */
  | { type: "observed"; reading: ChainReading; since: number }
  /** A turn at delivering event `id`: an attempt, and whether the endpoint is failing. */
  | { type: "delivered"; id: string; turn: DeliveryTurn }
  /** The lane released the onboarding: the endpoint answers again. */
  | { type: "released" }
  /** The lane's probe: attempt the oldest event now, without asking the lane (it is the one trying the endpoint). */
  | { type: "probe" }
  /** The host asked for the events given up to be sent again. */
  | { type: "resend" }
  /** The index write of `version` (null: the deletion of the rows) landed, or D1 refused it. */
  | { type: "indexed"; version: number | null; ok: boolean }
  /** The `unwatch` reached the chain follower, or did not. */
  | { type: "unfollowed"; ok: boolean };

export type OnboardingEffect =
  /** Write the state to storage. */
  | { type: "store"; state: OnboardingState }
  /** Set the one alarm to `at` (ms since the epoch); null: delete it. */
  | { type: "schedule"; at: number | null }
  /** Send the customer's page the record; close it once the onboarding has ended. */
  | { type: "notify"; record: OnboardingRecord }
  /** Read the chain for what the record awaits (and look up `claimed`, a transaction hash), then answer `observed`. */
  | { type: "read"; record: OnboardingRecord; claimed: string | null }
  /** Register with the network's chain follower as waiting on `addresses` (or refresh), then answer `followed`. */
  | { type: "follow"; id: string; addresses: string[] }
  /** Tell the chain follower this onboarding no longer waits for the chain, then answer `unfollowed`. */
  | { type: "unfollow"; id: string }
  /**
   * Attempt to deliver `event` to the host's webhook (first asking the lane unless `admitted`), then answer
   * `delivered`.
   */
  | { type: "deliver"; onboarding: string; event: OutboxEvent; admitted: boolean }
  /** Write the onboarding's row of the index and its events, then answer `indexed`. */
  | { type: "index"; row: OnboardingRow }
  /** Delete the onboarding's rows of the index, then answer `indexed` with a null version. */
  | { type: "unindex"; id: string }
  /** Close every subscriber and delete the storage and the alarm. */
  | { type: "erase" };

export interface Transition {
  state: OnboardingState | null;
  effects: OnboardingEffect[];
  /** The caller's answer: the state with its status, or the refusal. */
  answer: Answer<OnboardingState>;
}

/** What the machine needs besides the state and the clock. */
export interface MachineRules {
  /** The onboarding as an event shows it. */
  present(record: OnboardingRecord): OnboardingView;
  mintEventId(): string;
  /** ONBOARDING_CHECK_SECONDS in ms. */
  checkMs: number;
  /** ONBOARDING_TTL in ms. */
  ttlMs: number;
  /** Whether a webhook is configured: without one, events are kept in the log and never delivered. */
  delivering: boolean;
}

/**
 * What the chain's word does to the onboarding: a reading of the state queries (authorized once the
 * chain lists the authorization, applied once the node pays the payout), a claimed transaction (its
 * signer recorded, or the onboarding stopped), the next check's time, and a block's hint.
 */
import type { ErrorSpec } from "../../errors";
import { isOnboardingEnded } from "../../protocol/index";
import { NOT_AN_AUTHORIZATION, SIGNER_MISMATCH } from "../refusals";
import type { OnboardingState } from "../state";
import { enter, stop } from "./lifecycle";
import { checkDelayMs } from "./schedule";
import type { ChainReading, MachineRules, TxReading } from "./types";

/** A reading older than the block that named the onboarding is read again this soon… */
const LAGGING_RETRY_MS = 1000;

/** …for this long after the hint at most. */
const HINT_PATIENCE_MS = 30_000;

/**
 * What a reading of the chain means for the onboarding. Answers at a lower height than one
 * already used are older news and change nothing; a claimed transaction signed by another
 * address than the payout stops the onboarding.
 */
export function observe(
  state: OnboardingState,
  reading: ChainReading,
  now: number,
  rules: MachineRules,
): OnboardingState {
  if (isOnboardingEnded(state.record.status)) return state;
  let next = reading.tx ? applyTx(state, reading.tx, now, rules) : state;
  if (isOnboardingEnded(next.record.status)) return next;
  const auth = reading.authorizations;
  if (auth && isNewer(auth.height, next.watch.heights.authorizations)) {
    next = {
      ...next,
      watch: {
        ...next.watch,
        heights: { ...next.watch.heights, authorizations: auth.height ?? next.watch.heights.authorizations },
      },
    };
    if (auth.listed && next.record.status === "connected") {
      // The block that included the authorization, when its transaction was found, is the better answer than the height
      // it was read at.
      const height = next.record.authorization.txhash !== undefined ? next.record.authorization.height : undefined;
      next = enter(
        next,
        {
          authorization: {
            ...next.record.authorization,
            ...(height === undefined && auth.height !== null ? { height: auth.height } : {}),
          },
        },
        "authorized",
        now,
        rules,
      );
    }
  }
  const node = reading.node;
  if (node && isNewer(node.height, next.watch.heights.node)) {
    const seen = {
      ...(node.payoutRecipient !== null ? { payout_recipient: node.payoutRecipient } : {}),
      ...(node.height !== null ? { height: node.height } : {}),
    };
    next = {
      ...next,
      record: { ...next.record, node: seen },
      watch: { ...next.watch, heights: { ...next.watch.heights, node: node.height ?? next.watch.heights.node } },
    };
    if (
      next.record.status === "authorized" &&
      node.payoutRecipient !== null &&
      node.payoutRecipient === next.record.payout
    ) {
      next = enter(next, {}, "applied", now, rules);
    }
  }
  if (next.record !== state.record && next.record.status === state.record.status)
    next = { ...next, record: { ...next.record, updated_at: new Date(now).toISOString() } };
  return afterHint(scheduleCheck(next, now, rules), reading, now);
}

/**
 * A claimed transaction found in a block: signed by the payout, it is recorded; by another address, it stops the
 * onboarding; unrelated, it is forgotten.
 */
export function applyTx(state: OnboardingState, tx: TxReading, now: number, rules: MachineRules): OnboardingState {
  if (tx.txhash !== state.watch.claimed_txhash || isOnboardingEnded(state.record.status)) return state;
  const watch = { ...state.watch, claimed_txhash: null };
  if ("unrelated" in tx) return { ...state, watch };
  if (tx.signer !== state.record.payout) {
    const problem = {
      reason: SIGNER_MISMATCH(tx.signer, "").reason,
      message:
        `The authorization ${tx.txhash} was signed by ${tx.signer}, not by the paired payout address ` +
        `${state.record.payout}`,
    };
    return stop(state, "cancelled", problem, now, rules);
  }
  const included = tx.height !== null ? { height: tx.height } : {};
  return {
    ...state,
    record: { ...state.record, authorization: { ...state.record.authorization, txhash: tx.txhash, ...included } },
    watch,
  };
}

/**
 * What the page is told about its claimed transaction: refused when it authorizes nothing or another address signed it.
 */
export function txRefusal(state: OnboardingState, tx: TxReading | undefined): ErrorSpec | null {
  if (!tx || tx.txhash !== state.watch.claimed_txhash) return null;
  if ("unrelated" in tx) return NOT_AN_AUTHORIZATION(state.record.operator);
  return tx.signer === state.record.payout ? null : SIGNER_MISMATCH(tx.signer, state.record.payout ?? "");
}

/** Whether the onboarding waits for the chain: paired and not ended (what it answers the follower's hints). */
export function waitsForChain(state: OnboardingState): boolean {
  return state.record.payout !== null && !isOnboardingEnded(state.record.status);
}

/**
 * After a block named the onboarding at height H, a reading that answered below H (a lagging node)
 * or not at all is older than the block: read again in a second, for at most HINT_PATIENCE_MS
 * (then the usual schedule takes over). A reading at H or above ends the hint. A reading that began
 * (`now`) before the hint came was under way when the block was told and may predate it: that says
 * nothing of a lagging node, so the hinted read is due at once, not a second later.
 */
function afterHint(state: OnboardingState, reading: ChainReading, now: number): OnboardingState {
  const hinted = state.watch.hinted;
  if (hinted === null || state.watch.next_check_at === null) return state;
  const heights = [reading.authorizations?.height, reading.node?.height].filter((h) => h !== undefined);
  const older = heights.length === 0 || heights.some((h) => h !== null && h < hinted.height);
  if (!older || now - hinted.at >= HINT_PATIENCE_MS) return { ...state, watch: { ...state.watch, hinted: null } };
  const next_check_at = now < hinted.at ? hinted.at : now + LAGGING_RETRY_MS;
  return { ...state, watch: { ...state.watch, next_check_at } };
}

/** Sets when the chain is read next: never once ended or before a payout, else by the back-off rule. */
export function scheduleCheck(state: OnboardingState, now: number, rules: MachineRules): OnboardingState {
  const waiting = !isOnboardingEnded(state.record.status) && state.record.payout !== null;
  const at = waiting ? now + checkDelayMs(now - state.watch.changed_at, rules.checkMs, state.watch.following) : null;
  return { ...state, watch: { ...state.watch, next_check_at: at } };
}

/** What the reading of a chain answer at `height` may change: null heights (a proxy stripped them) always count. */
function isNewer(height: number | null, highest: number): boolean {
  return height === null || height >= highest;
}

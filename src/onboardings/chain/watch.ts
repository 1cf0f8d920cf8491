/**
 * What to read of the chain for an onboarding in its current status, and what a claimed
 * authorization transaction shows. A node that cannot be reached leaves the reading empty: the
 * next check asks again.
 */
import type { Config } from "../../config";
import { errorText, log } from "../../log";
import { readAuthorization, readAuthorizationTx, readNodePayout } from "./reading";
import type { ChainReading, TxReading } from "../machine";
import type { OnboardingRecord } from "../state";

/**
 * Looks up the claimed transaction (when there is one), then reads the authorization while it is
 * awaited and the node record (at once, if the same reading found the authorization). A claim
 * signed by another address stops the onboarding, so nothing more is read.
 */
export async function readChain(
  config: Config,
  record: OnboardingRecord,
  claimed: string | null,
): Promise<ChainReading> {
  const reading: ChainReading = {};
  if (record.payout === null) return reading;
  if (claimed !== null) {
    const tx = await lookUpClaim(config, record, claimed);
    if (tx) reading.tx = tx;
    if (tx && "signer" in tx && tx.signer !== record.payout) return reading;
  }
  try {
    if (record.status === "connected" && record.authorization.required) {
      reading.authorizations = await readAuthorization(config, record.payout, record.operator);
    }
    if (record.status === "authorized" || reading.authorizations?.listed) {
      reading.node = await readNodePayout(config, record.operator);
    }
  } catch (err) {
    logReadFailure(record.id, err);
  }
  return reading;
}

/** The claimed transaction as a block holds it; undefined while no block does (or no node answered). */
export async function lookUpClaim(
  config: Config,
  record: OnboardingRecord,
  txhash: string,
): Promise<TxReading | undefined> {
  try {
    const finding = await readAuthorizationTx(config, txhash, record.operator);
    if (finding.kind === "pending") return undefined;
    if (finding.kind === "unrelated") {
      log("warn", "authorization_claim_unrelated", { onboarding: record.id, txhash, reason: finding.reason });
      return { txhash, unrelated: finding.reason };
    }
    return { txhash, signer: finding.signer, height: finding.height };
  } catch (err) {
    logReadFailure(record.id, err);
    return undefined;
  }
}

function logReadFailure(onboarding: string, err: unknown): void {
  log("warn", "onboarding_chain_read_failed", { onboarding, error: errorText(err) });
}

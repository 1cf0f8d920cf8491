/**
 * What to read of the chain for an onboarding in its current status, and what a claimed
 * authorization transaction means for it. A node that cannot be reached leaves the reading
 * empty: the next check asks again.
 */
import type { Config } from "../config";
import type { ErrorSpec } from "../errors";
import { readAuthorization, readAuthorizationTx, readNodePayout } from "./chain-reading";
import type { ChainReading } from "./machine";
import { NOT_AN_AUTHORIZATION, signerMismatch } from "./refusals";
import type { OnboardingRecord } from "./state";

/** Reads the authorization while it is awaited, then the node record (at once, if the same reading found the authorization). */
export async function chainReadingFor(config: Config, record: OnboardingRecord): Promise<ChainReading> {
  const reading: ChainReading = {};
  if (record.payout === null) return reading;
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

/** The claimed transaction's verdict: a reading to apply, whether to forget the claim, and the refusal to answer. */
export interface ClaimVerdict {
  reading?: ChainReading;
  drop: boolean;
  refusal: ErrorSpec | null;
}

export async function verifyClaimedTx(config: Config, record: OnboardingRecord, txhash: string): Promise<ClaimVerdict> {
  try {
    const finding = await readAuthorizationTx(config, txhash, record.operator);
    if (finding.kind === "pending") return { drop: false, refusal: null };
    if (finding.kind === "unrelated") {
      console.warn(JSON.stringify({ level: "warn", event: "authorization_claim_unrelated", onboarding: record.id, txhash, reason: finding.reason }));
      return { drop: true, refusal: NOT_AN_AUTHORIZATION(record.operator) };
    }
    const reading: ChainReading = { tx: { txhash, signer: finding.signer, height: finding.height } };
    return { reading, drop: false, refusal: finding.signer === record.payout ? null : signerMismatch(finding.signer, record.payout ?? "") };
  } catch (err) {
    logReadFailure(record.id, err);
    return { drop: false, refusal: null };
  }
}

function logReadFailure(onboarding: string, err: unknown): void {
  console.warn(JSON.stringify({ level: "warn", event: "onboarding_chain_read_failed", onboarding, error: err instanceof Error ? err.message : String(err) }));
}

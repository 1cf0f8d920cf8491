/**
 * `x/distribution` queries in the stock shapes, with DecCoin amounts as 18-decimal strings. The
 * figures grow with the height (rewards and the community pool accrue every block), at made-up
 * rates.
 */
import type { Ledger } from "./ledger.ts";
import { decFromAtto } from "./seeds.ts";

const decCoin = (ledger: Ledger, atto: bigint) => ({ denom: ledger.brand.nativeDenom, amount: decFromAtto(atto) });

/** `delegators/{delegator}/rewards`: one entry per delegation and their sum (both empty without delegations). */
export function delegatorRewards(ledger: Ledger, delegator: string, height: number) {
  const accrued = ledger.delegations(delegator).map((d) => ({
    validator: d.delegation.validator_address,
    atto: BigInt(d.balance.amount) * BigInt(height) * 123_456_789n,
  }));
  const sum = accrued.reduce((n, r) => n + r.atto, 0n);
  return {
    rewards: accrued.map((r) => ({ validator_address: r.validator, reward: [decCoin(ledger, r.atto)] })),
    total: accrued.length ? [decCoin(ledger, sum)] : [],
  };
}

/**
 * `validators/{valoper}/commission`. An unknown validator gets an empty list, as SDK v0.47 answers
 * (v0.50 refuses with ErrNoValidatorExists; which one the network runs is not public).
 */
export function validatorCommission(ledger: Ledger, valoper: string, height: number) {
  const validator = ledger.validators().find((v) => v.operator_address === valoper);
  const commission = validator
    ? [decCoin(ledger, (BigInt(validator.tokens) * BigInt(height) * 7_654_321n) / 1000n)]
    : [];
  return { commission: { commission } };
}

/** `community_pool`. */
export function communityPool(ledger: Ledger, height: number) {
  return { pool: [decCoin(ledger, BigInt(height) * 2_000_000n * 10n ** 18n + BigInt(height) * 987_654_321n)] };
}

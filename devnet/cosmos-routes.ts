/** The stock Cosmos SDK modules the network's tools read (bank, staking, auth, tx, distribution), in their stock shapes. */
import { accountAt } from "./accounts.ts";
import type { Ledger } from "./ledger.ts";
import { communityPool, delegatorRewards, validatorCommission } from "./distribution.ts";
import { list, type ModuleRoute } from "./route.ts";
import { BLOCK_ROUTES } from "./blocks.ts";
import { getTxResponse } from "./tx-json.ts";

/** The native token's metadata (bank's DenomsMetadata), for the REST and the CometBFT face alike. */
export function denomMetadata(l: Ledger) {
  const base = l.brand.nativeDenom;
  const display = base.replace(/^u/, "");
  return {
    description: `The native staking and fee token of ${l.brand.chainId}.`,
    denom_units: [
      { denom: base, exponent: 0, aliases: [`micro${display}`] },
      { denom: `m${display}`, exponent: 3, aliases: [`milli${display}`] },
      { denom: display, exponent: 6, aliases: [] },
    ],
    base,
    display,
    name: display.toUpperCase(),
    symbol: display.toUpperCase(),
    uri: "",
    uri_hash: "",
  };
}

export const COSMOS_ROUTES: readonly ModuleRoute[] = [
  {
    path: "/cosmos/bank/v1beta1/balances/:address",
    answer: (l, p, q) => list("balances", l.balances(l.checkAddress(p.address!)), q),
  },
  {
    path: "/cosmos/bank/v1beta1/supply",
    answer: (l, _p, q, h) => list("supply", [l.coin(1_000_000_000_000_000n + BigInt(h) * 1_000_000n)], q),
  },
  {
    path: "/cosmos/bank/v1beta1/denoms_metadata",
    answer: (l, _p, q) => list("metadatas", [denomMetadata(l)], q),
  },
  {
    path: "/cosmos/staking/v1beta1/validators",
    answer: (l, _p, q) => {
      const status = q.get("status");
      return list(
        "validators",
        l.validators().filter((v) => !status || v.status === status),
        q,
      );
    },
  },
  {
    path: "/cosmos/staking/v1beta1/delegations/:delegator_addr",
    answer: (l, p, q) => list("delegation_responses", l.delegations(l.checkAddress(p.delegator_addr!)), q),
  },
  {
    path: "/cosmos/staking/v1beta1/pool",
    answer: (l) => {
      const bonded = l
        .validators()
        .filter((v) => v.status === "BOND_STATUS_BONDED")
        .reduce((n, v) => n + BigInt(v.tokens), 0n);
      return { pool: { not_bonded_tokens: "1250000000000", bonded_tokens: String(bonded) } };
    },
  },
  {
    path: "/cosmos/auth/v1beta1/accounts/:address",
    answer: (l, p, _q, h) => accountAt(l, l.checkAddress(p.address!), h),
  },
  { path: "/cosmos/tx/v1beta1/txs/:hash", answer: (l, p, _q, h) => getTxResponse(l, p.hash!, h) },
  ...BLOCK_ROUTES,
  {
    path: "/cosmos/distribution/v1beta1/delegators/:delegator_address/rewards",
    answer: (l, p, _q, h) => delegatorRewards(l, l.checkAddress(p.delegator_address!), h),
  },
  {
    path: "/cosmos/distribution/v1beta1/validators/:validator_address/commission",
    answer: (l, p, _q, h) => validatorCommission(l, l.checkValoper(p.validator_address!), h),
  },
  { path: "/cosmos/distribution/v1beta1/community_pool", answer: (l, _p, _q, h) => communityPool(l, h) },
];

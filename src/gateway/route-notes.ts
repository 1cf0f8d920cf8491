/**
 * What each gateway route answers and why its TTL is what it is, in words: only the OpenAPI
 * document (src/openapi/document.ts, a build-time asset) and docs/GATEWAY.md need them, so they
 * live apart from route-table.ts and are not in the Worker. Keyed by the row's path.
 */
import type { GatewayRoute } from "./route-table";

interface RouteNote {
  /** What the query returns, in a few words (the OpenAPI summary). */
  readonly summary: string;
  /** Why the row's TTL: how fast the value changes on chain. */
  readonly why: string;
}

const NOTES: Readonly<Record<string, RouteNote>> = {
  "/{ns}/incentives/v1/params": {
    summary: "Incentives module parameters",
    why: "module params change only by governance",
  },
  "/{ns}/incentives/v1/node/:operator": {
    summary: "One hosted node by operator address",
    why: "node status and last-seen height move every block",
  },
  "/{ns}/incentives/v1/nodes": {
    summary: "List of hosted nodes",
    why: "node set and statuses move every block",
  },
  "/{ns}/incentives/v1/operator_authorizations/:payout_recipient": {
    summary: "Operators authorized by a payout recipient",
    why: "onboarding polls for a just-signed authorization; about one block",
  },
  "/{ns}/incentives/v1/peer_grant/:operator": {
    summary: "Fee grant the network gives a hosted node's operator",
    why: "granted at registration and renewed rarely",
  },
  "/{ns}/incentives/v1/eligible_nodes": {
    summary: "Hosted nodes eligible for the payout",
    why: "eligibility follows proofs and liveness, a few blocks of lag is fine",
  },
  "/{ns}/incentives/v1/estimated_daily_payout": {
    summary: "Estimated daily payout",
    why: "derived from the epoch's pool and active node count",
  },
  "/{ns}/incentives/v1/network_summary": {
    summary: "Network summary",
    why: "aggregate counters; seconds of lag are invisible",
  },
  "/cosmos/bank/v1beta1/balances/:address": {
    summary: "Balances of an address",
    why: "balances change with any block",
  },
  "/cosmos/bank/v1beta1/supply": {
    summary: "Total supply",
    why: "grows every block by inflation; nobody needs it to the block",
  },
  "/cosmos/bank/v1beta1/denoms_metadata": {
    summary: "Denom metadata",
    why: "denom metadata changes only by governance or upgrade",
  },
  "/cosmos/auth/v1beta1/accounts/:address": {
    summary: "Account (number, sequence, public key)",
    why:
      "a signer reads the sequence just before signing and each transaction moves it; stale by a block fails the " +
      "broadcast",
  },
  "/cosmos/tx/v1beta1/txs/:hash": {
    summary: "A transaction by hash",
    why:
      "a transaction in a block never changes; not found yet (404) is kept a second only, since clients poll for " +
      "inclusion",
  },
  "/cosmos/staking/v1beta1/validators": {
    summary: "Validators",
    why: "validator set and tokens shift slowly",
  },
  "/cosmos/staking/v1beta1/delegations/:delegator_addr": {
    summary: "Delegations of a delegator",
    why: "a delegator's own transactions change it; about one block",
  },
  "/cosmos/staking/v1beta1/pool": {
    summary: "Staking pool (bonded and not bonded tokens)",
    why: "bonded totals move with delegations, a few blocks of lag is fine",
  },
  "/cosmos/distribution/v1beta1/delegators/:delegator_address/rewards": {
    summary: "Staking rewards of a delegator",
    why: "rewards accrue every block",
  },
  "/cosmos/distribution/v1beta1/validators/:validator_address/commission": {
    summary: "Accumulated commission of a validator",
    why: "accrues every block; nobody needs it to the block",
  },
  "/cosmos/distribution/v1beta1/community_pool": {
    summary: "Community pool",
    why: "grows every block by a fraction of fees and inflation; an aggregate",
  },
  "/{ns}/trustscore/v1/params": {
    summary: "Trust score module parameters",
    why: "module params change only by governance",
  },
  "/{ns}/trustscore/v1/epoch": {
    summary: "Current trust score epoch",
    why: "an epoch spans many blocks",
  },
  "/{ns}/trustscore/v1/global_trusts": {
    summary: "Global trust scores",
    why: "recomputed once per epoch",
  },
  "/{ns}/trustscore/v1/participant/:address": {
    summary: "Trust score of one participant",
    why: "scores are recomputed per epoch",
  },
  "/{ns}/campaign/v1/campaigns": {
    summary: "List of campaigns",
    why: "campaigns are created and updated rarely; raised totals a few blocks late",
  },
  "/{ns}/campaign/v1/campaign/:id": {
    summary: "One campaign by id",
    why: "one campaign; updates are rare, raised totals may lag a few blocks",
  },
  "/{ns}/campaign/v1/treasury/:campaign_id": {
    summary: "Treasury of a campaign",
    why: "treasury balance changes with each donation; about one block",
  },
};

/** The notes of `route`; a row without notes is a defect the docs build stops on. */
export function routeNote(route: GatewayRoute): RouteNote {
  const note = NOTES[route.path];
  if (note === undefined) throw new Error(`src/gateway/route-notes.ts has no notes for ${route.path}`);
  return note;
}

/**
 * The gateway's routes: the 19 module queries of groups A–E, one row each. The code walks this
 * table; adding an endpoint is adding a row. `{ns}` is the brand namespace from CHAIN_NAMESPACE,
 * `:name` a path parameter whose validator is named in `params`.
 */
import type { ParamKind, QueryName } from "./validators";

export interface GatewayRoute {
  /** Path below `/api`, e.g. `/{ns}/incentives/v1/node/:operator`. */
  path: string;
  /** What the query returns, in a few words (the OpenAPI summary). */
  summary: string;
  /** Validator of each path parameter. */
  params?: Readonly<Record<string, ParamKind>>;
  /** Query parameters the route takes; anything else is refused. */
  query?: readonly QueryName[];
  /** Seconds an answer is fresh. */
  ttl: number;
  /** Why this TTL: how fast the value changes on chain. */
  why: string;
}

/** The Cosmos `PageRequest` parameters every list route takes. */
export const PAGINATION: readonly QueryName[] = [
  "pagination.key",
  "pagination.offset",
  "pagination.limit",
  "pagination.count_total",
  "pagination.reverse",
];

/** Seconds an upstream 4xx answer (an unknown node, a bad id) is cached: briefly, it may appear next block. */
export const ERROR_ANSWER_TTL = 5;

export const GATEWAY_ROUTES: readonly GatewayRoute[] = [
  // A. incentives
  {
    path: "/{ns}/incentives/v1/params",
    summary: "Incentives module parameters",
    ttl: 300,
    why: "module params change only by governance",
  },
  {
    path: "/{ns}/incentives/v1/node/:operator",
    summary: "One hosted node by operator address",
    params: { operator: "address" },
    ttl: 6,
    why: "node status and last-seen height move every block",
  },
  {
    path: "/{ns}/incentives/v1/nodes",
    summary: "List of hosted nodes",
    query: PAGINATION,
    ttl: 6,
    why: "node set and statuses move every block",
  },
  {
    path: "/{ns}/incentives/v1/operator_authorizations/:payout_recipient",
    summary: "Operators authorized by a payout recipient",
    params: { payout_recipient: "address" },
    query: PAGINATION,
    ttl: 5,
    why: "onboarding polls for a just-signed authorization; about one block",
  },
  {
    path: "/{ns}/incentives/v1/estimated_daily_payout",
    summary: "Estimated daily payout",
    ttl: 60,
    why: "derived from the epoch's pool and active node count",
  },
  {
    path: "/{ns}/incentives/v1/network_summary",
    summary: "Network summary",
    ttl: 30,
    why: "aggregate counters; seconds of lag are invisible",
  },
  // B. bank
  {
    path: "/cosmos/bank/v1beta1/balances/:address",
    summary: "Balances of an address",
    params: { address: "address" },
    query: PAGINATION,
    ttl: 5,
    why: "balances change with any block",
  },
  {
    path: "/cosmos/bank/v1beta1/supply",
    summary: "Total supply",
    query: PAGINATION,
    ttl: 30,
    why: "grows every block by inflation; nobody needs it to the block",
  },
  {
    path: "/cosmos/bank/v1beta1/denoms_metadata",
    summary: "Denom metadata",
    query: PAGINATION,
    ttl: 300,
    why: "denom metadata changes only by governance or upgrade",
  },
  // C. staking
  {
    path: "/cosmos/staking/v1beta1/validators",
    summary: "Validators",
    query: [...PAGINATION, "status"],
    ttl: 30,
    why: "validator set and tokens shift slowly",
  },
  {
    path: "/cosmos/staking/v1beta1/delegations/:delegator_addr",
    summary: "Delegations of a delegator",
    params: { delegator_addr: "address" },
    query: PAGINATION,
    ttl: 5,
    why: "a delegator's own transactions change it; about one block",
  },
  {
    path: "/cosmos/staking/v1beta1/pool",
    summary: "Staking pool (bonded and not bonded tokens)",
    ttl: 15,
    why: "bonded totals move with delegations, a few blocks of lag is fine",
  },
  // D. trust score
  {
    path: "/{ns}/trustscore/v1/params",
    summary: "Trust score module parameters",
    ttl: 300,
    why: "module params change only by governance",
  },
  {
    path: "/{ns}/trustscore/v1/epoch",
    summary: "Current trust score epoch",
    ttl: 30,
    why: "an epoch spans many blocks",
  },
  {
    path: "/{ns}/trustscore/v1/global_trusts",
    summary: "Global trust scores",
    query: PAGINATION,
    ttl: 60,
    why: "recomputed once per epoch",
  },
  {
    path: "/{ns}/trustscore/v1/participant/:address",
    summary: "Trust score of one participant",
    params: { address: "address" },
    ttl: 30,
    why: "scores are recomputed per epoch",
  },
  // E. campaign
  {
    path: "/{ns}/campaign/v1/campaigns",
    summary: "List of campaigns",
    query: PAGINATION,
    ttl: 15,
    why: "campaigns are created and updated rarely; raised totals a few blocks late",
  },
  {
    path: "/{ns}/campaign/v1/campaign/:id",
    summary: "One campaign by id",
    params: { id: "uint64" },
    ttl: 15,
    why: "one campaign; updates are rare, raised totals may lag a few blocks",
  },
  {
    path: "/{ns}/campaign/v1/treasury/:campaign_id",
    summary: "Treasury of a campaign",
    params: { campaign_id: "uint64" },
    ttl: 6,
    why: "treasury balance changes with each donation; about one block",
  },
];

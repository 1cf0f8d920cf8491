/**
 * The gateway's routes: the 19 module queries of groups A–E and the queries the network's own
 * tools use, one row each. The code walks this table; adding an endpoint is adding a row. `{ns}`
 * is the brand namespace from CHAIN_NAMESPACE, `:name` a path parameter whose validator is named
 * in `params`. Every route is a read: the gateway answers GET and HEAD only. Each row also names
 * its gRPC method, so the RPC face's `abci_query` (src/gateway/rpc/) reads the same table.
 */
import type { ParamKind, QueryName } from "./validators";

export interface GatewayRoute {
  /** Path below `/api`, e.g. `/{ns}/incentives/v1/node/:operator`. */
  path: string;
  /**
   * The gRPC method behind the path, in the package the path names (`/{ns}/incentives/v1/…` is
   * `{ns}.incentives.v1`): `Query/Node` is `/{ns}.incentives.v1.Query/Node`, the `abci_query`
   * path of the RPC face, which takes this row's TTLs. The `Query` services named here are the
   * only ones `abci_query` serves.
   */
  grpc: string;
  /** What the query returns, in a few words (the OpenAPI summary). */
  summary: string;
  /** Validator of each path parameter. */
  params?: Readonly<Record<string, ParamKind>>;
  /** Query parameters the route takes; anything else is refused. */
  query?: readonly QueryName[];
  /** Seconds a 2xx answer is fresh. */
  ttl: number;
  /** Why this TTL: how fast the value changes on chain. */
  why: string;
  /** Seconds a 4xx answer is fresh, when not ERROR_ANSWER_TTL (and never more than `ttl`). */
  errorTtl?: number;
}

/** The Cosmos `PageRequest` parameters every list route takes. */
const PAGINATION: readonly QueryName[] = [
  "pagination.key",
  "pagination.offset",
  "pagination.limit",
  "pagination.count_total",
  "pagination.reverse",
];

/** Seconds an upstream 4xx answer (an unknown node, a bad id) is cached: briefly, it may appear next block. */
export const ERROR_ANSWER_TTL = 5;

/**
 * Seconds a 2xx answer to a historical read (`x-cosmos-block-height: N`) is fresh, whatever the
 * row: the state at a past height never changes, so only storage bounds it (a day; a node that
 * prunes the height answers a 4xx, which keeps the brief error TTL).
 */
export const HISTORICAL_ANSWER_TTL = 86_400;

/** The full gRPC method of `route`, e.g. `/cosmos.bank.v1beta1.Query/AllBalances` (`{ns}` left in). */
export const grpcMethod = (route: GatewayRoute) => `/${route.path.split("/", 4).slice(1).join(".")}.${route.grpc}`;

/** Seconds an answer of `route` with `status` is fresh; `historical` for a read at a past height. */
export function answerTtl(route: GatewayRoute, status: number, historical: boolean): number {
  if (status >= 300) return Math.min(route.ttl, route.errorTtl ?? ERROR_ANSWER_TTL);
  return historical ? HISTORICAL_ANSWER_TTL : route.ttl;
}

export const GATEWAY_ROUTES: readonly GatewayRoute[] = [
  // A. incentives
  {
    path: "/{ns}/incentives/v1/params",
    grpc: "Query/Params",
    summary: "Incentives module parameters",
    ttl: 300,
    why: "module params change only by governance",
  },
  {
    path: "/{ns}/incentives/v1/node/:operator",
    grpc: "Query/Node",
    summary: "One hosted node by operator address",
    params: { operator: "address" },
    ttl: 6,
    why: "node status and last-seen height move every block",
  },
  {
    path: "/{ns}/incentives/v1/nodes",
    grpc: "Query/Nodes",
    summary: "List of hosted nodes",
    query: PAGINATION,
    ttl: 6,
    why: "node set and statuses move every block",
  },
  {
    path: "/{ns}/incentives/v1/operator_authorizations/:payout_recipient",
    grpc: "Query/OperatorAuthorizations",
    summary: "Operators authorized by a payout recipient",
    params: { payout_recipient: "address" },
    query: PAGINATION,
    ttl: 5,
    why: "onboarding polls for a just-signed authorization; about one block",
  },
  {
    path: "/{ns}/incentives/v1/peer_grant/:operator",
    grpc: "Query/PeerGrant",
    summary: "Fee grant the network gives a hosted node's operator",
    params: { operator: "address" },
    ttl: 30,
    why: "granted at registration and renewed rarely",
  },
  {
    path: "/{ns}/incentives/v1/eligible_nodes",
    grpc: "Query/EligibleNodes",
    summary: "Hosted nodes eligible for the payout",
    query: PAGINATION,
    ttl: 15,
    why: "eligibility follows proofs and liveness, a few blocks of lag is fine",
  },
  {
    path: "/{ns}/incentives/v1/estimated_daily_payout",
    grpc: "Query/EstimatedDailyPayout",
    summary: "Estimated daily payout",
    ttl: 60,
    why: "derived from the epoch's pool and active node count",
  },
  {
    path: "/{ns}/incentives/v1/network_summary",
    grpc: "Query/NetworkSummary",
    summary: "Network summary",
    ttl: 30,
    why: "aggregate counters; seconds of lag are invisible",
  },
  // B. bank
  {
    path: "/cosmos/bank/v1beta1/balances/:address",
    grpc: "Query/AllBalances",
    summary: "Balances of an address",
    params: { address: "address" },
    query: PAGINATION,
    ttl: 5,
    why: "balances change with any block",
  },
  {
    path: "/cosmos/bank/v1beta1/supply",
    grpc: "Query/TotalSupply",
    summary: "Total supply",
    query: PAGINATION,
    ttl: 30,
    why: "grows every block by inflation; nobody needs it to the block",
  },
  {
    path: "/cosmos/bank/v1beta1/denoms_metadata",
    grpc: "Query/DenomsMetadata",
    summary: "Denom metadata",
    query: PAGINATION,
    ttl: 300,
    why: "denom metadata changes only by governance or upgrade",
  },
  // Auth and transactions (what a node signer reads)
  {
    path: "/cosmos/auth/v1beta1/accounts/:address",
    grpc: "Query/Account",
    summary: "Account (number, sequence, public key)",
    params: { address: "address" },
    ttl: 2,
    why:
      "a signer reads the sequence just before signing and each transaction moves it; stale by a block fails the " +
      "broadcast",
  },
  {
    path: "/cosmos/tx/v1beta1/txs/:hash",
    grpc: "Service/GetTx",
    summary: "A transaction by hash",
    params: { hash: "txHash" },
    ttl: 86_400,
    why:
      "a transaction in a block never changes; not found yet (404) is kept a second only, since clients poll for " +
      "inclusion",
    errorTtl: 1,
  },
  // C. staking
  {
    path: "/cosmos/staking/v1beta1/validators",
    grpc: "Query/Validators",
    summary: "Validators",
    query: [...PAGINATION, "status"],
    ttl: 30,
    why: "validator set and tokens shift slowly",
  },
  {
    path: "/cosmos/staking/v1beta1/delegations/:delegator_addr",
    grpc: "Query/DelegatorDelegations",
    summary: "Delegations of a delegator",
    params: { delegator_addr: "address" },
    query: PAGINATION,
    ttl: 5,
    why: "a delegator's own transactions change it; about one block",
  },
  {
    path: "/cosmos/staking/v1beta1/pool",
    grpc: "Query/Pool",
    summary: "Staking pool (bonded and not bonded tokens)",
    ttl: 15,
    why: "bonded totals move with delegations, a few blocks of lag is fine",
  },
  // Distribution
  {
    path: "/cosmos/distribution/v1beta1/delegators/:delegator_address/rewards",
    grpc: "Query/DelegationTotalRewards",
    summary: "Staking rewards of a delegator",
    params: { delegator_address: "address" },
    ttl: 6,
    why: "rewards accrue every block",
  },
  {
    path: "/cosmos/distribution/v1beta1/validators/:validator_address/commission",
    grpc: "Query/ValidatorCommission",
    summary: "Accumulated commission of a validator",
    params: { validator_address: "validatorAddress" },
    ttl: 15,
    why: "accrues every block; nobody needs it to the block",
  },
  {
    path: "/cosmos/distribution/v1beta1/community_pool",
    grpc: "Query/CommunityPool",
    summary: "Community pool",
    ttl: 30,
    why: "grows every block by a fraction of fees and inflation; an aggregate",
  },
  // D. trust score
  {
    path: "/{ns}/trustscore/v1/params",
    grpc: "Query/Params",
    summary: "Trust score module parameters",
    ttl: 300,
    why: "module params change only by governance",
  },
  {
    path: "/{ns}/trustscore/v1/epoch",
    grpc: "Query/Epoch",
    summary: "Current trust score epoch",
    ttl: 30,
    why: "an epoch spans many blocks",
  },
  {
    path: "/{ns}/trustscore/v1/global_trusts",
    grpc: "Query/GlobalTrusts",
    summary: "Global trust scores",
    query: PAGINATION,
    ttl: 60,
    why: "recomputed once per epoch",
  },
  {
    path: "/{ns}/trustscore/v1/participant/:address",
    grpc: "Query/Participant",
    summary: "Trust score of one participant",
    params: { address: "address" },
    ttl: 30,
    why: "scores are recomputed per epoch",
  },
  // E. campaign
  {
    path: "/{ns}/campaign/v1/campaigns",
    grpc: "Query/Campaigns",
    summary: "List of campaigns",
    query: PAGINATION,
    ttl: 15,
    why: "campaigns are created and updated rarely; raised totals a few blocks late",
  },
  {
    path: "/{ns}/campaign/v1/campaign/:id",
    grpc: "Query/Campaign",
    summary: "One campaign by id",
    params: { id: "uint64" },
    ttl: 15,
    why: "one campaign; updates are rare, raised totals may lag a few blocks",
  },
  {
    path: "/{ns}/campaign/v1/treasury/:campaign_id",
    grpc: "Query/Treasury",
    summary: "Treasury of a campaign",
    params: { campaign_id: "uint64" },
    ttl: 6,
    why: "treasury balance changes with each donation; about one block",
  },
];

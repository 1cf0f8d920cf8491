/**
 * The gateway's routes: the 19 module queries of groups A–E and the queries the network's own
 * tools use, one row each. The code walks this table; adding an endpoint is adding a row. `{ns}`
 * is the brand namespace from CHAIN_NAMESPACE, `:name` a path parameter whose validator is named
 * in `params`. Every route is a read: the gateway answers GET and HEAD only. Each row also names
 * its gRPC method, so the RPC face's `abci_query` (src/gateway/rpc/) reads the same table. What
 * each row answers and why its TTL, in words, are in route-notes.ts (docs only, not in the Worker).
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
  /** Validator of each path parameter. */
  params?: Readonly<Record<string, ParamKind>>;
  /** Query parameters the route takes; anything else is refused. */
  query?: readonly QueryName[];
  /** Seconds a 2xx answer is fresh. */
  ttl: number;
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
    ttl: 300,
  },
  {
    path: "/{ns}/incentives/v1/node/:operator",
    grpc: "Query/Node",
    params: { operator: "address" },
    ttl: 6,
  },
  {
    path: "/{ns}/incentives/v1/nodes",
    grpc: "Query/Nodes",
    query: PAGINATION,
    ttl: 6,
  },
  {
    path: "/{ns}/incentives/v1/operator_authorizations/:payout_recipient",
    grpc: "Query/OperatorAuthorizations",
    params: { payout_recipient: "address" },
    query: PAGINATION,
    ttl: 5,
  },
  {
    path: "/{ns}/incentives/v1/peer_grant/:operator",
    grpc: "Query/PeerGrant",
    params: { operator: "address" },
    ttl: 30,
  },
  {
    path: "/{ns}/incentives/v1/eligible_nodes",
    grpc: "Query/EligibleNodes",
    query: PAGINATION,
    ttl: 15,
  },
  {
    path: "/{ns}/incentives/v1/estimated_daily_payout",
    grpc: "Query/EstimatedDailyPayout",
    ttl: 60,
  },
  {
    path: "/{ns}/incentives/v1/network_summary",
    grpc: "Query/NetworkSummary",
    ttl: 30,
  },
  // B. bank
  {
    path: "/cosmos/bank/v1beta1/balances/:address",
    grpc: "Query/AllBalances",
    params: { address: "address" },
    query: PAGINATION,
    ttl: 5,
  },
  {
    path: "/cosmos/bank/v1beta1/supply",
    grpc: "Query/TotalSupply",
    query: PAGINATION,
    ttl: 30,
  },
  {
    path: "/cosmos/bank/v1beta1/denoms_metadata",
    grpc: "Query/DenomsMetadata",
    query: PAGINATION,
    ttl: 300,
  },
  // Auth and transactions (what a node signer reads)
  {
    path: "/cosmos/auth/v1beta1/accounts/:address",
    grpc: "Query/Account",
    params: { address: "address" },
    ttl: 2,
  },
  {
    path: "/cosmos/tx/v1beta1/txs/:hash",
    grpc: "Service/GetTx",
    params: { hash: "txHash" },
    ttl: 86_400,
    errorTtl: 1,
  },
  // C. staking
  {
    path: "/cosmos/staking/v1beta1/validators",
    grpc: "Query/Validators",
    query: [...PAGINATION, "status"],
    ttl: 30,
  },
  {
    path: "/cosmos/staking/v1beta1/delegations/:delegator_addr",
    grpc: "Query/DelegatorDelegations",
    params: { delegator_addr: "address" },
    query: PAGINATION,
    ttl: 5,
  },
  {
    path: "/cosmos/staking/v1beta1/pool",
    grpc: "Query/Pool",
    ttl: 15,
  },
  // Distribution
  {
    path: "/cosmos/distribution/v1beta1/delegators/:delegator_address/rewards",
    grpc: "Query/DelegationTotalRewards",
    params: { delegator_address: "address" },
    ttl: 6,
  },
  {
    path: "/cosmos/distribution/v1beta1/validators/:validator_address/commission",
    grpc: "Query/ValidatorCommission",
    params: { validator_address: "validatorAddress" },
    ttl: 15,
  },
  {
    path: "/cosmos/distribution/v1beta1/community_pool",
    grpc: "Query/CommunityPool",
    ttl: 30,
  },
  // D. trust score
  {
    path: "/{ns}/trustscore/v1/params",
    grpc: "Query/Params",
    ttl: 300,
  },
  {
    path: "/{ns}/trustscore/v1/epoch",
    grpc: "Query/Epoch",
    ttl: 30,
  },
  {
    path: "/{ns}/trustscore/v1/global_trusts",
    grpc: "Query/GlobalTrusts",
    query: PAGINATION,
    ttl: 60,
  },
  {
    path: "/{ns}/trustscore/v1/participant/:address",
    grpc: "Query/Participant",
    params: { address: "address" },
    ttl: 30,
  },
  // E. campaign
  {
    path: "/{ns}/campaign/v1/campaigns",
    grpc: "Query/Campaigns",
    query: PAGINATION,
    ttl: 15,
  },
  {
    path: "/{ns}/campaign/v1/campaign/:id",
    grpc: "Query/Campaign",
    params: { id: "uint64" },
    ttl: 15,
  },
  {
    path: "/{ns}/campaign/v1/treasury/:campaign_id",
    grpc: "Query/Treasury",
    params: { campaign_id: "uint64" },
    ttl: 6,
  },
];

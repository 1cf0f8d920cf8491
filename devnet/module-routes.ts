/**
 * The devnet's REST surface: the 19 query paths of groups A–E, one row each, answered from the
 * ledger with the shapes a Cosmos SDK node (bank, staking) or the network's modules return.
 */
import { notFound } from "./cosmos-errors.ts";
import type { Ledger } from "./ledger.ts";
import { paginate } from "./pagination.ts";

type Answer = (ledger: Ledger, params: Record<string, string>, query: URLSearchParams, height: number) => unknown;

interface ModuleRoute {
  /** Path with `{ns}` for the brand namespace and `:name` parameters. */
  path: string;
  answer: Answer;
}

const list = <T>(key: string, items: readonly T[], query: URLSearchParams) => {
  const { page, pagination } = paginate(items, query);
  return { [key]: page, pagination };
};

/** The 19 module query routes. */
export const MODULE_ROUTES: readonly ModuleRoute[] = [
  {
    path: "/{ns}/incentives/v1/params",
    answer: (l) => ({
      params: {
        epoch_length: "1200",
        payout_denom: l.brand.nativeDenom,
        daily_reward_pool: l.coin(250_000_000_000),
        min_uptime: "0.950000000000000000",
        max_nodes_per_payout_recipient: "10",
      },
    }),
  },
  {
    path: "/{ns}/incentives/v1/node/:operator",
    answer: (l, p, _q, h) => {
      const operator = l.checkAddress(p.operator!);
      const node = l.nodes(h).find((n) => n.operator === operator);
      if (!node) throw notFound(`node ${operator} not found: key not found`);
      return { node };
    },
  },
  { path: "/{ns}/incentives/v1/nodes", answer: (l, _p, q, h) => list("nodes", l.nodes(h), q) },
  {
    path: "/{ns}/incentives/v1/operator_authorizations/:payout_recipient",
    answer: (l, p, q) => list("operator_authorizations", l.authorizations.get(l.checkAddress(p.payout_recipient!)) ?? [], q),
  },
  {
    path: "/{ns}/incentives/v1/estimated_daily_payout",
    answer: (l, _p, _q, h) => {
      const active = l.nodes(h).filter((n) => n.status === "NODE_STATUS_ACTIVE").length;
      return { estimated_daily_payout: l.coin(Math.floor(250_000_000_000 / active)), active_nodes: String(active), epoch: String(Math.floor(h / 1200)) };
    },
  },
  {
    path: "/{ns}/incentives/v1/network_summary",
    answer: (l, _p, _q, h) => {
      const nodes = l.nodes(h);
      const authorizations = [...l.authorizations.values()].reduce((n, a) => n + a.length, 0);
      return {
        summary: {
          total_nodes: String(nodes.length),
          active_nodes: String(nodes.filter((n) => n.status === "NODE_STATUS_ACTIVE").length),
          total_authorizations: String(authorizations),
          current_epoch: String(Math.floor(h / 1200)),
          total_paid: l.coin(BigInt(Math.floor(h / 1200)) * 250_000_000_000n),
        },
      };
    },
  },
  { path: "/cosmos/bank/v1beta1/balances/:address", answer: (l, p, q) => list("balances", l.balances(l.checkAddress(p.address!)), q) },
  {
    path: "/cosmos/bank/v1beta1/supply",
    answer: (l, _p, q, h) => list("supply", [l.coin(1_000_000_000_000_000n + BigInt(h) * 1_000_000n)], q),
  },
  {
    path: "/cosmos/bank/v1beta1/denoms_metadata",
    answer: (l, _p, q) => {
      const base = l.brand.nativeDenom;
      const display = base.replace(/^u/, "");
      const metadata = {
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
      return list("metadatas", [metadata], q);
    },
  },
  {
    path: "/cosmos/staking/v1beta1/validators",
    answer: (l, _p, q) => {
      const status = q.get("status");
      return list("validators", l.validators().filter((v) => !status || v.status === status), q);
    },
  },
  {
    path: "/cosmos/staking/v1beta1/delegations/:delegator_addr",
    answer: (l, p, q) => list("delegation_responses", l.delegations(l.checkAddress(p.delegator_addr!)), q),
  },
  {
    path: "/cosmos/staking/v1beta1/pool",
    answer: (l) => {
      const bonded = l.validators().filter((v) => v.status === "BOND_STATUS_BONDED").reduce((n, v) => n + BigInt(v.tokens), 0n);
      return { pool: { not_bonded_tokens: "1250000000000", bonded_tokens: String(bonded) } };
    },
  },
  {
    path: "/{ns}/trustscore/v1/params",
    answer: (l) => ({ params: { epoch_length: "600", damping_factor: "0.150000000000000000", max_iterations: "50", pre_trusted: [l.account("operator-1")] } }),
  },
  {
    path: "/{ns}/trustscore/v1/epoch",
    answer: (_l, _p, _q, h) => {
      const number = Math.floor(h / 600);
      return { epoch: { number: String(number), start_height: String(number * 600), end_height: String(number * 600 + 599) } };
    },
  },
  { path: "/{ns}/trustscore/v1/global_trusts", answer: (l, _p, q) => list("global_trusts", l.trustScores(), q) },
  {
    path: "/{ns}/trustscore/v1/participant/:address",
    answer: (l, p, _q, h) => {
      const address = l.checkAddress(p.address!);
      const score = l.trustScores().find((s) => s.address === address);
      if (!score) throw notFound(`participant ${address} not found: key not found`);
      return { participant: { ...score, local_trust_count: "5", last_epoch: String(Math.floor(h / 600)) } };
    },
  },
  { path: "/{ns}/campaign/v1/campaigns", answer: (l, _p, q) => list("campaigns", l.campaigns(), q) },
  { path: "/{ns}/campaign/v1/campaign/:id", answer: (l, p) => ({ campaign: l.campaign(l.checkUint64("id", p.id!)) }) },
  {
    path: "/{ns}/campaign/v1/treasury/:campaign_id",
    answer: (l, p) => {
      const campaign = l.campaign(l.checkUint64("campaign_id", p.campaign_id!));
      return { treasury: { campaign_id: campaign.id, address: l.account(`treasury-${campaign.id}`), balance: [campaign.raised] } };
    },
  },
];

/** Finds the row for `pathname` and its parameters, or `null`. */
export function matchModuleRoute(namespace: string, pathname: string) {
  const segments = pathname.split("/");
  for (const route of MODULE_ROUTES) {
    const pattern = route.path.replace("{ns}", namespace).split("/");
    if (pattern.length !== segments.length) continue;
    const params: Record<string, string> = {};
    if (pattern.every((p, i) => (p.startsWith(":") ? ((params[p.slice(1)] = decodeURIComponent(segments[i]!)), segments[i] !== "") : p === segments[i]))) {
      return { route, params };
    }
  }
  return null;
}

/**
 * The network's own modules under its namespace (incentives, trust score, campaign). Shapes
 * follow the network's docs and client code where they say something (the authorization list
 * under `authorizations`, the node record's fields, the documented parameters); the rest is
 * plausible and assumed.
 */
import { notFound } from "./cosmos-errors.ts";
import { eligibleNodes, peerGrant } from "./peer-incentives.ts";
import { list, type ModuleRoute } from "./route.ts";

export const NETWORK_ROUTES: readonly ModuleRoute[] = [
  {
    path: "/{ns}/incentives/v1/params",
    // Documented: the sync-proof interval (2 h), the daily share of the pool (20 %), proof-only liveness. The rest assumed.
    answer: (l) => ({
      params: {
        sync_proof_min_interval: "7200s",
        daily_distribution_bps: "2000",
        liveness_mode: "PEER_LIVENESS_MODE_PROOF_ONLY",
        payout_denom: l.brand.nativeDenom,
        registration_bond: l.coin(10),
        max_sync_lag_blocks: "100",
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
    answer: (l, p, q, h) => list("authorizations", l.authorizationsOf(l.checkAddress(p.payout_recipient!), h), q),
  },
  {
    path: "/{ns}/incentives/v1/peer_grant/:operator",
    answer: (l, p, _q, h) => peerGrant(l, l.checkAddress(p.operator!), h),
  },
  {
    path: "/{ns}/incentives/v1/eligible_nodes",
    answer: (l, _p, q, h) => list("eligible_nodes", eligibleNodes(l, h), q),
  },
  {
    path: "/{ns}/incentives/v1/estimated_daily_payout",
    answer: (l, _p, _q, h) => {
      const active = l.nodes(h).filter((n) => n.status === "NODE_STATUS_ACTIVE").length;
      return {
        estimated_daily_payout: l.coin(Math.floor(250_000_000_000 / active)),
        active_nodes: String(active),
        epoch: String(Math.floor(h / 1200)),
      };
    },
  },
  {
    path: "/{ns}/incentives/v1/network_summary",
    answer: (l, _p, _q, h) => {
      const nodes = l.nodes(h);
      return {
        summary: {
          total_nodes: String(nodes.length),
          active_nodes: String(nodes.filter((n) => n.status === "NODE_STATUS_ACTIVE").length),
          total_authorizations: String(l.allAuthorizations(h).length),
          current_epoch: String(Math.floor(h / 1200)),
          total_paid: l.coin(BigInt(Math.floor(h / 1200)) * 250_000_000_000n),
        },
      };
    },
  },
  {
    path: "/{ns}/trustscore/v1/params",
    answer: (l) => ({
      params: {
        epoch_length: "600",
        damping_factor: "0.150000000000000000",
        max_iterations: "50",
        pre_trusted: [l.account("operator-1")],
      },
    }),
  },
  {
    path: "/{ns}/trustscore/v1/epoch",
    answer: (_l, _p, _q, h) => {
      const number = Math.floor(h / 600);
      return {
        epoch: { number: String(number), start_height: String(number * 600), end_height: String(number * 600 + 599) },
      };
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
      return {
        treasury: {
          campaign_id: campaign.id,
          address: l.account(`treasury-${campaign.id}`),
          balance: [campaign.raised],
        },
      };
    },
  },
];

/**
 * The incentives module's peer queries the network's tools use (`peer_grant/{operator}`,
 * `eligible_nodes`). Their answer shapes are not public: the field names here are assumed,
 * built from what the docs describe (a one-time fee grant scoped to the register, update and
 * sync-proof messages with a sponsored registration bond; eligibility by sync-proof health).
 */
import { notFound } from "./cosmos-errors.ts";
import type { Ledger } from "./ledger.ts";
import { dec } from "./seeds.ts";

/** Sync-proof slots a node must have had healthy in the last 12 (the docs: ≥ 11 of 12 in 24 h). */
const HEALTHY_SLOTS_REQUIRED = 11;
/** Blocks a node's last proof may trail the chain (the docs: ≤ 100). */
const MAX_LAG = 100;

/** `peer_grant/{operator}`: the grant a registered operator claimed, or the node's 404. */
export function peerGrant(ledger: Ledger, operator: string, height: number) {
  const node = ledger.nodes(height).find((n) => n.operator === operator);
  if (!node) throw notFound(`peer grant for ${operator} not found: key not found`);
  const incentives = `/${ledger.brand.namespace}.incentives.v1`;
  return {
    peer_grant: {
      operator,
      claimed_height: String(Number(node.registered_height) - 1),
      registration_bond: ledger.coin(10),
      allowed_messages: [
        `${incentives}.MsgRegisterNode`,
        `${incentives}.MsgUpdateNode`,
        `${incentives}.MsgSubmitSyncProof`,
      ],
    },
  };
}

/** `eligible_nodes`: active nodes whose proofs are recent and healthy enough, with their payout weight. */
export function eligibleNodes(ledger: Ledger, height: number) {
  return ledger
    .nodes(height)
    .map((node, i) => ({ node, healthySlots: i === 4 ? 10 : 12 }))
    .filter(
      ({ node, healthySlots }) =>
        node.status === "NODE_STATUS_ACTIVE" &&
        height - Number(node.last_seen_height) <= MAX_LAG &&
        healthySlots >= HEALTHY_SLOTS_REQUIRED,
    )
    .map(({ node, healthySlots }, i) => ({
      operator: node.operator,
      payout_recipient: node.payout_recipient,
      healthy_sync_proof_slots: String(healthySlots),
      reliability: dec(healthySlots / 12),
      trust_weight: dec((6 - i) / 21),
    }));
}

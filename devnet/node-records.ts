/**
 * Hosted-node records: six seeded at genesis, any registered through the devnet's control route,
 * and every change MsgUpdateNode made, each kept at its height so a historical read sees the
 * record as it was then. The module's rules (who may change what) live in the ledger.
 */
import { DevnetError, Code } from "./cosmos-errors.ts";
import { seedBytes, seeded } from "./seeds.ts";

/**
 * A node record with the fields the network documents (operator, CometBFT node id,
 * `external_address` ip:26656, `rpc_url` ip:26657, `label`, `payout_recipient`). Assumed: the
 * names `node_id` and `rpc_url`'s `http://` scheme, and the status fields `status`,
 * `registered_height` and `last_seen_height` (the last sync proof's height).
 */
export interface NodeRecord {
  operator: string;
  node_id: string;
  external_address: string;
  rpc_url: string;
  label: string;
  payout_recipient: string;
  status: string;
  registered_height: string;
  last_seen_height: string;
}

/** What one MsgUpdateNode changes; an empty field leaves the record's value as it was. */
export interface NodeChange {
  operator: string;
  payout_recipient: string;
  label: string;
}

interface Registered {
  operator: string;
  label: string;
  height: number;
}

const SEEDED = [1, 2, 3, 4, 5, 6];

export class NodeRecords {
  private registered: Registered[] = [];
  private changes: (NodeChange & { height: number })[] = [];
  private readonly account: (label: string) => string;

  constructor(account: (label: string) => string) {
    this.account = account;
  }

  /** Every record at `height`: the seeded ones, then registrations in order, with the changes made by then. */
  at(height: number): NodeRecord[] {
    const records = [
      ...SEEDED.map((n) => this.seeded(n, height)),
      ...this.registered.filter((r) => r.height <= height).map((r) => this.fresh(r)),
    ];
    for (const change of this.changes) {
      if (change.height > height) continue;
      const record = records.find((r) => r.operator === change.operator);
      if (!record) continue;
      if (change.payout_recipient) record.payout_recipient = change.payout_recipient;
      if (change.label) record.label = change.label;
    }
    return records;
  }

  /** Registers a node for `operator` at `height`, paying the operator itself (no PAYOUT_RECIPIENT); 409 when it has one. */
  register(operator: string, label: string, height: number): NodeRecord {
    if (this.at(Infinity).some((r) => r.operator === operator))
      throw new DevnetError(409, Code.ALREADY_EXISTS, `node ${operator} already exists`);
    const entry = { operator, label, height };
    this.registered.push(entry);
    return this.fresh(entry);
  }

  change(change: NodeChange, height: number): void {
    this.changes.push({ ...change, height });
  }

  /** Saves the changes; calling the result puts them back (a failed transaction's rollback). */
  snapshot(): () => void {
    const saved = [...this.changes];
    return () => {
      this.changes = saved;
    };
  }

  private seeded(n: number, height: number): NodeRecord {
    const ip = n % 2 === 1 ? `203.0.113.${10 + n}` : `198.51.100.${20 + n}`;
    return {
      operator: this.account(`operator-${n}`),
      node_id: seedBytes(`node-id-${n}`).toString("hex"),
      external_address: `${ip}:26656`,
      rpc_url: `http://${ip}:26657`,
      label: `hosted-node-${n}`,
      payout_recipient: n <= 2 ? this.account("payout-1") : this.account(`operator-${n}`),
      status: n === 6 ? "NODE_STATUS_INACTIVE" : "NODE_STATUS_ACTIVE",
      registered_height: String(100 * n),
      // Node 4 lags far behind and node 6 stopped proving long ago.
      last_seen_height: String(n === 6 ? 1000 : Math.max(1, height - (n === 4 ? 150 : n % 3))),
    };
  }

  /** A node registered in this run: active, its registration its only proof so far. */
  private fresh({ operator, label, height }: Registered): NodeRecord {
    const ip = `203.0.113.${seeded(`ip-${operator}`, 100, 250)}`;
    return {
      operator,
      node_id: seedBytes(`node-id-${operator}`).toString("hex"),
      external_address: `${ip}:26656`,
      rpc_url: `http://${ip}:26657`,
      label,
      payout_recipient: operator,
      status: "NODE_STATUS_ACTIVE",
      registered_height: String(height),
      last_seen_height: String(height),
    };
  }
}

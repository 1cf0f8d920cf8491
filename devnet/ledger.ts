/**
 * The devnet's chain state: deterministic accounts, validators, hosted nodes, trust scores and
 * campaigns derived from fixed seeds and the brand words, plus what a local run records: operator
 * authorizations (each at the height it was made, so a historical read sees the state then) and
 * transactions. The block height follows the wall clock from a fixed genesis, so it only ever
 * grows, across restarts too.
 */
import { fromBech32, toBech32 } from "@cosmjs/encoding";
import type { Brand } from "./brand.ts";
import { badRequest, DevnetError, Code } from "./cosmos-errors.ts";
import { ErrAuthorizationExists, ErrSelfAuthorization, ModuleError } from "./incentives-errors.ts";
import { dec, seedBytes, seeded } from "./seeds.ts";
import { TxLog } from "./tx-log.ts";

/** Genesis of every devnet: 2026-01-01T00:00:00Z at height 1. */
const GENESIS_MS = Date.UTC(2026, 0, 1);

/** An operator authorization as the incentives module stores it. */
export interface OperatorAuthorization {
  payout_recipient: string;
  operator: string;
  label: string;
  authorized_at: string;
}

/** A MsgAuthorizeOperator whose fields are well formed; the module's own rules are checked on `authorize`. */
export type AuthorizationRequest = Omit<OperatorAuthorization, "authorized_at">;

interface RecordedAuthorization {
  entry: OperatorAuthorization;
  height: number;
}

export class Ledger {
  readonly brand: Brand;
  readonly blockMs: number;
  readonly txs = new TxLog();
  private recorded = new Map<string, RecordedAuthorization[]>();

  constructor(brand: Brand, blockMs = 2000) {
    this.brand = brand;
    this.blockMs = blockMs;
    const payout = this.account("payout-1");
    const seededAt = this.height(Date.UTC(2026, 0, 2, 9, 30));
    for (const n of [1, 2]) this.authorize({ payout_recipient: payout, operator: this.account(`operator-${n}`), label: `rack-a-${n}` }, seededAt);
  }

  /** Current block height: advances one block every `blockMs` since genesis. */
  height(now = Date.now()): number {
    return 1 + Math.floor((now - GENESIS_MS) / this.blockMs);
  }

  /** The block time of `height`, as RFC 3339 in whole seconds. */
  blockTime(height: number): string {
    return new Date(GENESIS_MS + (height - 1) * this.blockMs).toISOString().replace(/\.\d{3}Z$/, "Z");
  }

  account(label: string): string {
    return toBech32(this.brand.bech32Prefix, seedBytes(label));
  }

  valoper(label: string): string {
    return toBech32(`${this.brand.bech32Prefix}valoper`, seedBytes(label));
  }

  /** Throws the node's own 400 unless `value` is an account address with the devnet's prefix. */
  checkAddress(value: string): string {
    return this.checkBech32(value, this.brand.bech32Prefix);
  }

  /** Throws the node's own 400 unless `value` is a validator operator address with the devnet's prefix. */
  checkValoper(value: string): string {
    return this.checkBech32(value, `${this.brand.bech32Prefix}valoper`);
  }

  private checkBech32(value: string, prefix: string): string {
    let decoded;
    try {
      decoded = fromBech32(value, 90);
    } catch (err) {
      throw badRequest(`invalid address: decoding bech32 failed: ${(err as Error).message}`);
    }
    if (decoded.prefix !== prefix) throw badRequest(`invalid address: invalid Bech32 prefix; expected ${prefix}, got ${decoded.prefix}`);
    return value;
  }

  checkUint64(name: string, value: string): bigint {
    if (!/^\d{1,20}$/.test(value) || BigInt(value) > 0xffff_ffff_ffff_ffffn) {
      throw badRequest(`type mismatch, parameter: ${name}, error: strconv.ParseUint: parsing ${JSON.stringify(value)}: invalid syntax`);
    }
    return BigInt(value);
  }

  coin(amount: number | bigint) {
    return { denom: this.brand.nativeDenom, amount: String(amount) };
  }

  /** The fields of an authorization, checked for form: bad addresses or label are the node's 400. */
  parseAuthorization(input: { payout_recipient?: unknown; operator?: unknown; label?: unknown }): AuthorizationRequest {
    const payout = this.checkAddress(String(input.payout_recipient ?? ""));
    const operator = this.checkAddress(String(input.operator ?? ""));
    const label = input.label === undefined ? "" : input.label;
    if (typeof label !== "string" || label.length > 140) throw badRequest("label must be a string of at most 140 characters");
    return { payout_recipient: payout, operator, label };
  }

  /** Records an authorization made at `height`, or throws the module's ErrSelfAuthorization / ErrAuthorizationExists. */
  authorize(request: AuthorizationRequest, height: number): OperatorAuthorization {
    const { payout_recipient: payout, operator } = request;
    if (payout === operator) throw new ModuleError(ErrSelfAuthorization, "payout recipient equals operator");
    const list = this.recorded.get(payout) ?? [];
    if (list.some((a) => a.entry.operator === operator)) throw new ModuleError(ErrAuthorizationExists, `${payout} -> ${operator}`);
    const entry = { ...request, authorized_at: this.blockTime(height) };
    this.recorded.set(payout, [...list, { entry, height }]);
    return entry;
  }

  /** The operators `payout` had authorized at `height` (now when absent), oldest first. */
  authorizationsOf(payout: string, height = Infinity): OperatorAuthorization[] {
    return (this.recorded.get(payout) ?? []).filter((a) => a.height <= height).map((a) => a.entry);
  }

  /** Every authorization recorded by `height` (now when absent). */
  allAuthorizations(height = Infinity): OperatorAuthorization[] {
    return [...this.recorded.keys()].flatMap((payout) => this.authorizationsOf(payout, height));
  }

  /** Saves the recorded authorizations; calling the result puts them back (a failed transaction's rollback). */
  snapshot(): () => void {
    const saved = new Map(this.recorded);
    return () => {
      this.recorded = saved;
    };
  }

  validators() {
    const names = ["Aurora", "Basalt", "Cobalt", "Dune"];
    return names.map((moniker, i) => {
      const tokens = BigInt(seeded(`val-${i}`, 2_000_000, 9_000_000)) * 1_000_000n;
      return {
        operator_address: this.valoper(`validator-${i}`),
        consensus_pubkey: { "@type": "/cosmos.crypto.ed25519.PubKey", key: seedBytes(`cons-${i}`, 32).toString("base64") },
        jailed: false,
        status: i === 3 ? "BOND_STATUS_UNBONDING" : "BOND_STATUS_BONDED",
        tokens: String(tokens),
        delegator_shares: `${tokens}.000000000000000000`,
        description: { moniker, identity: "", website: `https://${moniker.toLowerCase()}.devnet.invalid`, security_contact: "", details: "devnet validator" },
        unbonding_height: i === 3 ? "1200" : "0",
        unbonding_time: i === 3 ? "2026-01-22T00:00:00Z" : "1970-01-01T00:00:00Z",
        commission: {
          commission_rates: { rate: dec(0.05 + i * 0.01), max_rate: dec(0.2), max_change_rate: dec(0.01) },
          update_time: "2026-01-01T00:00:00Z",
        },
        min_self_delegation: "1",
        unbonding_on_hold_ref_count: "0",
        unbonding_ids: [],
      };
    });
  }

  delegations(delegator: string) {
    const known = [1, 2, 3].map((n) => this.account(`operator-${n}`)).concat(this.account("payout-1"));
    if (!known.includes(delegator)) return [];
    return this.validators().slice(0, 2).map((v, i) => {
      const amount = seeded(`del-${delegator}-${i}`, 1_000, 900_000) * 1000;
      return {
        delegation: { delegator_address: delegator, validator_address: v.operator_address, shares: `${amount}.000000000000000000` },
        balance: this.coin(amount),
      };
    });
  }

  balances(address: string) {
    const amount = seeded(`bal-${address}`, 0, 50_000_000) * 100;
    return amount === 0 ? [] : [this.coin(amount)];
  }

  /**
   * Hosted-node records with the fields the network documents (operator, CometBFT node id,
   * `external_address` ip:26656, `rpc_url` ip:26657, `label`, `payout_recipient`). Assumed: the
   * names `node_id` and `rpc_url`'s `http://` scheme, and the status fields `status`,
   * `registered_height` and `last_seen_height` (the last sync proof's height).
   */
  nodes(height: number) {
    return [1, 2, 3, 4, 5, 6].map((n) => {
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
    });
  }

  trustScores() {
    return this.nodes(0).map((node, i) => ({ address: node.operator, score: dec((6 - i) / 21) }));
  }

  campaigns() {
    return [1, 2, 3].map((n) => ({
      id: String(n),
      creator: this.account(`ngo-${n}`),
      ngo_id: String(n),
      title: ["Clean water wells", "School solar panels", "Reforestation 10k"][n - 1],
      description: "devnet campaign",
      status: n === 3 ? "CAMPAIGN_STATUS_COMPLETED" : "CAMPAIGN_STATUS_ACTIVE",
      goal: this.coin(seeded(`goal-${n}`, 10_000, 90_000) * 1_000_000),
      raised: this.coin(seeded(`raised-${n}`, 1_000, 9_000) * 1_000_000),
      start_time: `2026-0${n}-01T00:00:00Z`,
      end_time: `2026-1${n - 1}-01T00:00:00Z`,
    }));
  }

  campaign(id: bigint) {
    const found = this.campaigns().find((c) => c.id === String(id));
    if (!found) throw new DevnetError(404, Code.NOT_FOUND, `campaign ${id} not found: key not found`);
    return found;
  }
}

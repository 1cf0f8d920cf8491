/**
 * The devnet's chain state: deterministic accounts, validators, hosted nodes, trust scores and
 * campaigns derived from fixed seeds and the brand words, plus what a local run records: operator
 * authorizations and node changes (each at the height it was made, so a historical read sees the
 * state then), registered nodes and transactions. The block height follows the wall clock from a fixed genesis, so it only ever
 * grows, across restarts too.
 */
import { fromBech32, toBech32 } from "@cosmjs/encoding";
import type { Brand } from "./brand.ts";
import { badRequest, DevnetError, Code } from "./cosmos-errors.ts";
import {
  ErrAuthorizationExists,
  ErrNodeNotFound,
  ErrOperatorNotAuthorized,
  ErrSelfAuthorization,
  ModuleError,
} from "./incentives-errors.ts";
import { NodeRecords, type NodeChange, type NodeRecord } from "./node-records.ts";
import { dec, seedBytes, seeded } from "./seeds.ts";
import { TxLog } from "./tx-log.ts";

/** Genesis of every devnet: 2026-01-01T00:00:00Z at height 1. */
const GENESIS_MS = Date.UTC(2026, 0, 1);

/** A label as the incentives module takes it (absent: empty), or the node's 400. */
function checkLabel(value: unknown): string {
  const label = value === undefined ? "" : value;
  if (typeof label !== "string" || label.length > 140)
    throw badRequest("label must be a string of at most 140 characters");
  return label;
}

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
  /** The first block this devnet holds: the one it started at. */
  readonly firstBlock: number;
  /** How many blocks back from the latest a block is kept (a pruning node); all when Infinity. */
  readonly retainBlocks: number;
  readonly txs = new TxLog();
  private recorded = new Map<string, RecordedAuthorization[]>();
  private readonly nodeRecords = new NodeRecords((label) => this.account(label));

  constructor(brand: Brand, blockMs = 2000, retainBlocks = Infinity) {
    this.brand = brand;
    this.blockMs = blockMs;
    this.retainBlocks = retainBlocks;
    this.firstBlock = this.height();
    const payout = this.account("payout-1");
    const seededAt = this.height(Date.UTC(2026, 0, 2, 9, 30));
    for (const n of [1, 2])
      this.authorize(
        { payout_recipient: payout, operator: this.account(`operator-${n}`), label: `rack-a-${n}` },
        seededAt,
      );
  }

  /** Current block height: advances one block every `blockMs` since genesis. */
  height(now = Date.now()): number {
    return 1 + Math.floor((now - GENESIS_MS) / this.blockMs);
  }

  /** The block a transaction accepted now goes into: the next one. */
  nextHeight(): number {
    return this.height() + 1;
  }

  /** The lowest block a node whose latest is `latest` still serves. */
  lowestBlock(latest: number): number {
    return Math.max(this.firstBlock, latest - this.retainBlocks + 1);
  }

  /** Milliseconds until the chain reaches `height` (0 once it has). */
  msUntil(height: number, now = Date.now()): number {
    return Math.max(0, GENESIS_MS + (height - 1) * this.blockMs - now);
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
    if (decoded.prefix !== prefix)
      throw badRequest(`invalid address: invalid Bech32 prefix; expected ${prefix}, got ${decoded.prefix}`);
    return value;
  }

  checkUint64(name: string, value: string): bigint {
    if (!/^\d{1,20}$/.test(value) || BigInt(value) > 0xffff_ffff_ffff_ffffn) {
      throw badRequest(
        `type mismatch, parameter: ${name}, error: strconv.ParseUint: parsing ${JSON.stringify(value)}: invalid syntax`,
      );
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
    return { payout_recipient: payout, operator, label: checkLabel(input.label) };
  }

  /** Records an authorization made at `height`, or throws the module's ErrSelfAuthorization / ErrAuthorizationExists. */
  authorize(request: AuthorizationRequest, height: number): OperatorAuthorization {
    const { payout_recipient: payout, operator } = request;
    if (payout === operator) throw new ModuleError(ErrSelfAuthorization, "payout recipient equals operator");
    const list = this.recorded.get(payout) ?? [];
    if (list.some((a) => a.entry.operator === operator))
      throw new ModuleError(ErrAuthorizationExists, `${payout} -> ${operator}`);
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

  /** Saves the recorded authorizations and node changes; calling the result puts them back (a failed transaction's rollback). */
  snapshot(): () => void {
    const saved = new Map(this.recorded);
    const restoreNodes = this.nodeRecords.snapshot();
    return () => {
      this.recorded = saved;
      restoreNodes();
    };
  }

  validators() {
    const names = ["Aurora", "Basalt", "Cobalt", "Dune"];
    return names.map((moniker, i) => {
      const tokens = BigInt(seeded(`val-${i}`, 2_000_000, 9_000_000)) * 1_000_000n;
      return {
        operator_address: this.valoper(`validator-${i}`),
        consensus_pubkey: {
          "@type": "/cosmos.crypto.ed25519.PubKey",
          key: seedBytes(`cons-${i}`, 32).toString("base64"),
        },
        jailed: false,
        status: i === 3 ? "BOND_STATUS_UNBONDING" : "BOND_STATUS_BONDED",
        tokens: String(tokens),
        delegator_shares: `${tokens}.000000000000000000`,
        description: {
          moniker,
          identity: "",
          website: `https://${moniker.toLowerCase()}.devnet.invalid`,
          security_contact: "",
          details: "devnet validator",
        },
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
    return this.validators()
      .slice(0, 2)
      .map((v, i) => {
        const amount = seeded(`del-${delegator}-${i}`, 1_000, 900_000) * 1000;
        return {
          delegation: {
            delegator_address: delegator,
            validator_address: v.operator_address,
            shares: `${amount}.000000000000000000`,
          },
          balance: this.coin(amount),
        };
      });
  }

  balances(address: string) {
    const amount = seeded(`bal-${address}`, 0, 50_000_000) * 100;
    return amount === 0 ? [] : [this.coin(amount)];
  }

  /** The hosted-node records at `height`. */
  nodes(height: number): NodeRecord[] {
    return this.nodeRecords.at(height);
  }

  /** The fields of a MsgUpdateNode, checked for form: bad addresses or label are the node's 400. Empty fields mean "unchanged". */
  parseNodeChange(input: { operator?: unknown; payoutRecipient?: unknown; label?: unknown }): NodeChange {
    const operator = this.checkAddress(typeof input.operator === "string" ? input.operator : "");
    const payout = input.payoutRecipient ?? "";
    if (typeof payout !== "string") throw badRequest("payout recipient must be a string");
    return {
      operator,
      payout_recipient: payout === "" ? "" : this.checkAddress(payout),
      label: checkLabel(input.label),
    };
  }

  /**
   * Applies a MsgUpdateNode at `height`, or throws the module's ErrNodeNotFound, or
   * ErrOperatorNotAuthorized when the new payout recipient is another address that has not
   * authorized the operator.
   */
  updateNode(change: NodeChange, height: number): void {
    const { operator, payout_recipient: payout } = change;
    if (!this.nodes(height).some((n) => n.operator === operator))
      throw new ModuleError(ErrNodeNotFound, `node ${operator}`);
    const authorized =
      payout === "" ||
      payout === operator ||
      this.authorizationsOf(payout, height).some((a) => a.operator === operator);
    if (!authorized) throw new ModuleError(ErrOperatorNotAuthorized, `${payout} has not authorized ${operator}`);
    this.nodeRecords.change(change, height);
  }

  /** Registers a node for `operator` in the next block (the node's own first registration, without PAYOUT_RECIPIENT). */
  registerNode(input: { operator?: unknown; label?: unknown }): NodeRecord {
    const operator = this.checkAddress(typeof input.operator === "string" ? input.operator : "");
    return this.nodeRecords.register(operator, checkLabel(input.label), this.nextHeight());
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

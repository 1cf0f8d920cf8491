/**
 * The devnet's chain state: deterministic accounts, validators, hosted nodes, trust scores and
 * campaigns derived from fixed seeds and the brand words, plus the operator authorizations a
 * local run records. The block height follows the wall clock from a fixed genesis, so it only
 * ever grows, across restarts too.
 */
import { createHash } from "node:crypto";
import { fromBech32, toBech32 } from "@cosmjs/encoding";
import type { Brand } from "./brand.ts";
import { badRequest, DevnetError, Code } from "./cosmos-errors.ts";

/** Genesis of every devnet: 2026-01-01T00:00:00Z at height 1. */
const GENESIS_MS = Date.UTC(2026, 0, 1);

/** An operator authorization as the incentives module stores it. */
export interface OperatorAuthorization {
  payout_recipient: string;
  operator: string;
  label: string;
  authorized_at: string;
}

function seedBytes(label: string): Uint8Array {
  return new Uint8Array(createHash("sha256").update(`devnet:${label}`).digest().subarray(0, 20));
}

/** A number in [min, max) derived from a label, so every figure is the same on every run. */
function seeded(label: string, min: number, max: number): number {
  const n = createHash("sha256").update(`devnet-n:${label}`).digest().readUInt32BE(0);
  return min + (n % (max - min));
}

/** A Cosmos `LegacyDec` string (18 places) without float noise. */
const dec = (value: number) => `${value.toFixed(6)}000000000000`;

export class Ledger {
  readonly authorizations = new Map<string, OperatorAuthorization[]>();
  readonly brand: Brand;
  readonly blockMs: number;

  constructor(brand: Brand, blockMs = 2000) {
    this.brand = brand;
    this.blockMs = blockMs;
    const payout = this.account("payout-1");
    for (const n of [1, 2]) {
      this.authorizations.set(payout, [
        ...(this.authorizations.get(payout) ?? []),
        { payout_recipient: payout, operator: this.account(`operator-${n}`), label: `rack-a-${n}`, authorized_at: "2026-01-02T09:30:00Z" },
      ]);
    }
  }

  /** Current block height: advances one block every `blockMs` since genesis. */
  height(now = Date.now()): number {
    return 1 + Math.floor((now - GENESIS_MS) / this.blockMs);
  }

  account(label: string): string {
    return toBech32(this.brand.bech32Prefix, seedBytes(label));
  }

  valoper(label: string): string {
    return toBech32(`${this.brand.bech32Prefix}valoper`, seedBytes(label));
  }

  /** Throws the node's own 400 unless `value` is an account address with the devnet's prefix. */
  checkAddress(value: string): string {
    let decoded;
    try {
      decoded = fromBech32(value, 90);
    } catch (err) {
      throw badRequest(`invalid address: decoding bech32 failed: ${(err as Error).message}`);
    }
    if (decoded.prefix !== this.brand.bech32Prefix) {
      throw badRequest(`invalid address: invalid Bech32 prefix; expected ${this.brand.bech32Prefix}, got ${decoded.prefix}`);
    }
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

  /** Records an authorization with the chain's own refusals (ErrSelfAuthorization, ErrAuthorizationExists). */
  authorize(input: { payout_recipient?: unknown; operator?: unknown; label?: unknown }, now = new Date()): OperatorAuthorization {
    const payout = this.checkAddress(String(input.payout_recipient ?? ""));
    const operator = this.checkAddress(String(input.operator ?? ""));
    const label = input.label === undefined ? "" : input.label;
    if (typeof label !== "string" || label.length > 140) throw badRequest("label must be a string of at most 140 characters");
    if (payout === operator) throw badRequest("payout recipient equals operator: self authorization");
    const list = this.authorizations.get(payout) ?? [];
    if (list.some((a) => a.operator === operator)) {
      throw new DevnetError(409, Code.ALREADY_EXISTS, `authorization already exists: ${payout} -> ${operator}`);
    }
    const entry = { payout_recipient: payout, operator, label, authorized_at: now.toISOString().replace(/\.\d{3}Z$/, "Z") };
    this.authorizations.set(payout, [...list, entry]);
    return entry;
  }

  validators() {
    const names = ["Aurora", "Basalt", "Cobalt", "Dune"];
    return names.map((moniker, i) => {
      const tokens = BigInt(seeded(`val-${i}`, 2_000_000, 9_000_000)) * 1_000_000n;
      return {
        operator_address: this.valoper(`validator-${i}`),
        consensus_pubkey: {
          "@type": "/cosmos.crypto.ed25519.PubKey",
          key: Buffer.from(createHash("sha256").update(`cons-${i}`).digest()).toString("base64"),
        },
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

  nodes(height: number) {
    return [1, 2, 3, 4, 5, 6].map((n) => ({
      operator: this.account(`operator-${n}`),
      payout_recipient: n <= 2 ? this.account("payout-1") : this.account(`operator-${n}`),
      moniker: `hosted-node-${n}`,
      status: n === 6 ? "NODE_STATUS_INACTIVE" : "NODE_STATUS_ACTIVE",
      endpoint: `https://node-${n}.devnet.invalid:26657`,
      uptime: dec(n === 6 ? 0.41 : 0.99 - n / 1000),
      registered_height: String(100 * n),
      last_seen_height: String(n === 6 ? 1000 : Math.max(1, height - (n % 3))),
    }));
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

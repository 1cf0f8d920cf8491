/**
 * The devnet's transaction index: every transaction that went into a block, by hash, by signer and
 * by block. A transaction is recorded when it is accepted, with the height of the next block; it is
 * part of the chain (found by hash, listed in its block) once that block is the latest.
 */
import { createHash } from "node:crypto";

/** A message as the wallet protocol carries it: type URL and camelCase value. */
export interface TxMessage {
  typeUrl: string;
  value: Record<string, unknown>;
}

/** One transaction in a block, failed or not (a failed one still used its signer's sequence). */
export interface TxRecord {
  /** Upper-case hex SHA-256 of `raw`, as nodes print it. */
  hash: string;
  /** The transaction's bytes as the block carries them (the devnet's own encoding, not protobuf). */
  raw: Buffer;
  height: number;
  timestamp: string;
  signer: string;
  /** The signer's sequence this transaction used. */
  sequence: number;
  memo: string;
  messages: TxMessage[];
  code: number;
  codespace: string;
  rawLog: string;
}

export class TxLog {
  private byHash = new Map<string, TxRecord>();
  private bySigner = new Map<string, TxRecord[]>();
  private byHeight = new Map<number, TxRecord[]>();
  private minted = 0;

  /** Fresh transaction bytes and their hash (SHA-256, upper-case hex): a counter and the content, so no two collide. */
  mint(content: string): { raw: Buffer; hash: string } {
    const raw = Buffer.from(`devnet-tx:${++this.minted}:${content}`);
    return { raw, hash: createHash("sha256").update(raw).digest("hex").toUpperCase() };
  }

  add(record: TxRecord): void {
    this.byHash.set(record.hash, record);
    this.bySigner.set(record.signer, [...(this.bySigner.get(record.signer) ?? []), record]);
    this.byHeight.set(record.height, [...(this.byHeight.get(record.height) ?? []), record]);
  }

  /** The transaction with this hash, in either letter case, if a block by `height` holds it. */
  find(hash: string, height = Infinity): TxRecord | undefined {
    const record = this.byHash.get(hash.toUpperCase());
    return record && record.height <= height ? record : undefined;
  }

  /** The transactions of the block at `height`, in block order. */
  inBlock(height: number): readonly TxRecord[] {
    return this.byHeight.get(height) ?? [];
  }

  /** Transactions `signer` had in blocks by `height` (all accepted ones when absent, as the mempool counts sequences). */
  signedBy(signer: string, height = Infinity): TxRecord[] {
    return (this.bySigner.get(signer) ?? []).filter((tx) => tx.height <= height);
  }

  /** Signers in the order of their first transaction (for account numbers). */
  signers(): string[] {
    return [...this.bySigner.keys()];
  }
}

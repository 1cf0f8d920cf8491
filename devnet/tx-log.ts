/** The devnet's transaction index: every transaction that reached a block, by hash and by signer. */
import { createHash } from "node:crypto";

/** A message as the wallet protocol carries it: type URL and camelCase value. */
export interface TxMessage {
  typeUrl: string;
  value: Record<string, unknown>;
}

/** One transaction in a block, failed or not (a failed one still used its signer's sequence). */
export interface TxRecord {
  /** Upper-case hex SHA-256, as nodes print it. */
  hash: string;
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
  private minted = 0;

  /** A fresh transaction hash: SHA-256 of a counter and the transaction's content, so no two collide. */
  mintHash(content: string): string {
    return createHash("sha256").update(`devnet-tx:${++this.minted}:${content}`).digest("hex").toUpperCase();
  }

  add(record: TxRecord): void {
    this.byHash.set(record.hash, record);
    this.bySigner.set(record.signer, [...(this.bySigner.get(record.signer) ?? []), record]);
  }

  /** The transaction with this hash, in either letter case. */
  find(hash: string): TxRecord | undefined {
    return this.byHash.get(hash.toUpperCase());
  }

  /** Transactions `signer` had in blocks by `height` (all when absent). */
  signedBy(signer: string, height = Infinity): TxRecord[] {
    return (this.bySigner.get(signer) ?? []).filter((tx) => tx.height <= height);
  }

  /** Signers in the order of their first transaction (for account numbers). */
  signers(): string[] {
    return [...this.bySigner.keys()];
  }
}

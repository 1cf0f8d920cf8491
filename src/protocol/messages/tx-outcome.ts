/**
 * What a transaction answer means: the LCD's `GET /cosmos/tx/v1beta1/txs/{hash}` (through the
 * gateway) or a broadcast's `tx_response`. Code 0 is success; ErrAuthorizationExists is success
 * too, as the network's clients treat it; any other code is the chain's own failure, worded
 * "codespace: raw_log" as the wallet SDK's broadcast names it; not found (404) is "not yet".
 */
import * as z from "zod/mini";
import { ChainAnswerError, parseChainAnswer } from "../chain-answer.ts";
import { isAuthorizationExists } from "./errors.ts";

/** A transaction hash as the chain prints it: 64 uppercase hex characters. */
const TX_HASH_PATTERN = /^[0-9A-F]{64}$/;

/** Where a transaction stands, from one answer about it. */
export type TxOutcome =
  /** Not found yet: the wallet broadcast it, no block holds it yet. Ask again. */
  | { readonly kind: "pending" }
  /** In a block with code 0. */
  | { readonly kind: "included"; readonly txhash: string; readonly height: string }
  /** In a block, failed with ErrAuthorizationExists: the pair was already authorized, which counts as success. */
  | { readonly kind: "already-authorized"; readonly txhash: string; readonly height: string }
  /** In a block (or refused at broadcast) with another code; `reason` is the chain's own text. */
  | { readonly kind: "failed"; readonly txhash: string; readonly reason: string }
  /**
   * The answer says nothing usable about the transaction (an error status, a body without `tx_response`); `problem`
   * says why.
   */
  | { readonly kind: "unreadable"; readonly status: number; readonly problem: string };

/** The gateway path (under `/api`) and LCD path of a transaction look-up. */
export function txLookupPath(txhash: string): string {
  return `/cosmos/tx/v1beta1/txs/${encodeURIComponent(txhash)}`;
}

/** The hash in its canonical spelling (trimmed, uppercase), or null when it is not a transaction hash. */
export function canonicalTxHash(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const hash = value.trim().toUpperCase();
  return TX_HASH_PATTERN.test(hash) ? hash : null;
}

/**
 * What is read of a transaction answer: its `tx_response` (a code read as the wallet SDK reads it: absent is 0, a
 * numeric string is a number).
 */
const txAnswer = z.looseObject({
  tx_response: z.looseObject({
    txhash: z
      .string()
      .check(z.refine((value) => canonicalTxHash(value) !== null, "must be a transaction hash (64 hex characters)")),
    code: z.optional(z.union([z.number().check(z.int()), z.string().check(z.regex(/^\d+$/, "must be an integer"))])),
    codespace: z.optional(z.string()),
    raw_log: z.optional(z.string()),
    height: z.optional(z.union([z.string(), z.number()])),
  }),
});

/** Reads one answer (HTTP status and parsed JSON body) about a transaction. */
export function readTxAnswer(status: number, body: unknown): TxOutcome {
  if (status === 404) return { kind: "pending" };
  if (status < 200 || status >= 300) return { kind: "unreadable", status, problem: `the node answered HTTP ${status}` };
  let r: z.output<typeof txAnswer>["tx_response"];
  try {
    r = parseChainAnswer(txAnswer, body, "The transaction answer").tx_response;
  } catch (err) {
    if (!(err instanceof ChainAnswerError)) throw err;
    return { kind: "unreadable", status, problem: err.message };
  }
  const txhash = canonicalTxHash(r.txhash)!;
  const code = Number(r.code ?? 0);
  const height = r.height === undefined ? "" : String(r.height);
  if (code === 0) return { kind: "included", txhash, height };
  const rawLog = r.raw_log !== undefined && r.raw_log !== "" ? r.raw_log : `on-chain code ${code}`;
  if (isAuthorizationExists(rawLog)) return { kind: "already-authorized", txhash, height };
  const codespace = r.codespace ?? "";
  return { kind: "failed", txhash, reason: codespace ? `${codespace}: ${rawLog}` : rawLog };
}

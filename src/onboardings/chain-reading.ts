/**
 * The service's own reads of the chain for an onboarding, through the gateway's upstream
 * machinery (failover between the LCD nodes, their health board) and never from a cache: each
 * answer is taken fresh, with the block height it was answered at.
 */
import type { Config } from "../config";
import { askUpstreams } from "../gateway/upstreams";
import { listsOperator, operatorAuthorizationsPath, readTxAnswer, txLookupPath } from "../protocol/index";
import type { ChainReading } from "./machine";

/** Does `operator_authorizations/<payout>` list the operator? */
export async function readAuthorization(config: Config, payout: string, operator: string): Promise<NonNullable<ChainReading["authorizations"]>> {
  const answer = await askUpstreams(config, { upstreamPath: operatorAuthorizationsPath(config, payout), height: null });
  // A payout that has authorized nobody yet may be answered 404 by some nodes: not listed.
  return { listed: answer.status === 200 && listsOperator(parse(answer.body), operator), height: answer.height };
}

/** The node record's payout recipient (null while the chain has no node for this operator). */
export async function readNodePayout(config: Config, operator: string): Promise<NonNullable<ChainReading["node"]>> {
  const answer = await askUpstreams(config, { upstreamPath: `/${config.namespace}/incentives/v1/node/${encodeURIComponent(operator)}`, height: null });
  const node = answer.status === 200 ? (parse(answer.body) as { node?: { payout_recipient?: unknown; payoutRecipient?: unknown } } | null)?.node : undefined;
  const recipient = node?.payout_recipient ?? node?.payoutRecipient;
  return { payoutRecipient: typeof recipient === "string" && recipient !== "" ? recipient.trim().toLowerCase() : null, height: answer.height };
}

/** What a claimed authorization transaction shows, once a block holds it. */
export type TxFinding =
  | { kind: "pending" }
  /** Its MsgAuthorizeOperator for `operator` was signed by `signer` (the message's payout recipient). */
  | { kind: "signed"; signer: string; height: number | null }
  /** It holds no MsgAuthorizeOperator for this operator, or failed on chain. */
  | { kind: "unrelated"; reason: string };

/** Looks up `txhash` and reads who signed its authorization of `operator`. */
export async function readAuthorizationTx(config: Config, txhash: string, operator: string): Promise<TxFinding> {
  const answer = await askUpstreams(config, { upstreamPath: txLookupPath(txhash), height: null });
  const body = parse(answer.body);
  const outcome = readTxAnswer(answer.status, body);
  if (outcome.kind === "pending") return { kind: "pending" };
  if (outcome.kind === "unreadable") return { kind: "unrelated", reason: `the node answered ${outcome.status} about it` };
  if (outcome.kind === "failed") return { kind: "unrelated", reason: outcome.reason };
  const type = `/${config.namespace}.incentives.v1.MsgAuthorizeOperator`;
  const messages = (body as { tx?: { body?: { messages?: unknown } } }).tx?.body?.messages;
  for (const message of Array.isArray(messages) ? messages : []) {
    const m = message as Record<string, unknown>;
    if (m["@type"] !== type || String(m.operator ?? "").trim().toLowerCase() !== operator) continue;
    const signer = m.payout_recipient ?? m.payoutRecipient;
    if (typeof signer === "string") return { kind: "signed", signer: signer.trim().toLowerCase(), height: Number(outcome.height) || null };
  }
  return { kind: "unrelated", reason: "it holds no authorization of this operator" };
}

function parse(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return null;
  }
}

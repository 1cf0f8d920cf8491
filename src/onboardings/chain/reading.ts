/**
 * The service's own reads of the chain for an onboarding, through the gateway's upstream
 * machinery (failover between the LCD nodes, their health board) and never from a cache: each
 * answer is taken fresh, with the block height it was answered at. A node's answer is parsed
 * for what is read of it; one without it is a ChainAnswerError (a failed read, asked again),
 * never a verdict.
 */
import * as z from "zod/mini";
import type { Config } from "../../config";
import { askUpstreams } from "../../gateway/upstreams";
import {
  ChainAnswerError,
  chainJson,
  listedOperators,
  operatorAuthorizationsPath,
  parseChainAnswer,
  readTxAnswer,
  txLookupPath,
} from "../../protocol/index";
import type { ChainReading } from "../machine";

/** Does `operator_authorizations/<payout>` list the operator? */
export async function readAuthorization(
  config: Config,
  payout: string,
  operator: string,
): Promise<NonNullable<ChainReading["authorizations"]>> {
  const answer = await askUpstreams(config, { upstreamPath: operatorAuthorizationsPath(config, payout), height: null });
  // A payout that has authorized nobody yet may be answered 404 by some nodes: not listed.
  const listed =
    answer.status === 200 &&
    listedOperators(chainJson(answer.body, "The operator_authorizations answer")).includes(operator);
  return { listed, height: answer.height };
}

/** What is read of a node record: whom it pays (absent while it pays nobody). */
const nodeAnswer = z.looseObject({
  node: z.looseObject({ payout_recipient: z.optional(z.string()), payoutRecipient: z.optional(z.string()) }),
});

/** The node record's payout recipient (null while the chain has no node for this operator). */
export async function readNodePayout(config: Config, operator: string): Promise<NonNullable<ChainReading["node"]>> {
  const answer = await askUpstreams(config, {
    upstreamPath: `/${config.namespace}/incentives/v1/node/${encodeURIComponent(operator)}`,
    height: null,
  });
  if (answer.status !== 200) return { payoutRecipient: null, height: answer.height };
  const { node } = parseChainAnswer(nodeAnswer, chainJson(answer.body, "The node answer"), "The node answer");
  const recipient = (node.payout_recipient ?? node.payoutRecipient ?? "").trim().toLowerCase();
  return { payoutRecipient: recipient === "" ? null : recipient, height: answer.height };
}

/** What a claimed authorization transaction shows, once a block holds it. */
export type TxFinding =
  | { kind: "pending" }
  /** Its MsgAuthorizeOperator for `operator` was signed by `signer` (the message's payout recipient). */
  | { kind: "signed"; signer: string; height: number | null }
  /** It holds no MsgAuthorizeOperator for this operator, or failed on chain. */
  | { kind: "unrelated"; reason: string };

/** What is read of a transaction: the type of each message. */
const txMessages = z.looseObject({
  tx: z.looseObject({ body: z.looseObject({ messages: z.array(z.looseObject({ "@type": z.string() })) }) }),
});
/** What is read of a MsgAuthorizeOperator: its operator and who signed it (its payout recipient). */
const authorizeOperator = z.looseObject({
  operator: z.string(),
  payout_recipient: z.optional(z.string()),
  payoutRecipient: z.optional(z.string()),
});

/** Looks up `txhash` and reads who signed its authorization of `operator`. */
export async function readAuthorizationTx(config: Config, txhash: string, operator: string): Promise<TxFinding> {
  const answer = await askUpstreams(config, { upstreamPath: txLookupPath(txhash), height: null });
  const answered = answer.status >= 200 && answer.status < 300;
  const body = answered ? chainJson(answer.body, `The answer about transaction ${txhash}`) : null;
  const outcome = readTxAnswer(answer.status, body);
  if (outcome.kind === "pending") return { kind: "pending" };
  if (outcome.kind === "unreadable") {
    // A node's refusal says the hash is nothing here; a 2xx answer without what is read of it is the node's fault.
    if (answered) throw new ChainAnswerError(outcome.problem);
    return { kind: "unrelated", reason: `the node answered ${outcome.status} about it` };
  }
  if (outcome.kind === "failed") return { kind: "unrelated", reason: outcome.reason };
  const type = `/${config.namespace}.incentives.v1.MsgAuthorizeOperator`;
  const what = `The answer about transaction ${txhash}`;
  for (const message of parseChainAnswer(txMessages, body, what).tx.body.messages) {
    if (message["@type"] !== type) continue;
    const m = parseChainAnswer(authorizeOperator, message, `${what} (its ${type})`);
    if (m.operator.trim().toLowerCase() !== operator) continue;
    const signer = m.payout_recipient ?? m.payoutRecipient;
    if (signer === undefined) throw new ChainAnswerError(`${what} (its ${type}) names no payout recipient`);
    return { kind: "signed", signer: signer.trim().toLowerCase(), height: Number(outcome.height) || null };
  }
  return { kind: "unrelated", reason: "it holds no authorization of this operator" };
}

/**
 * `POST /__devnet/txs` `{signer, memo?, messages: [{typeUrl, value}]}`: plays "the wallet signed
 * this and broadcast it". The transaction goes into the next block: its effects, its look-up at
 * `/cosmos/tx/v1beta1/txs/{hash}` and its place in the block's transactions all appear at that
 * block's height, not before (the module's checks already see it, as a node's mempool does). Modelled, with the module's own refusals:
 * MsgAuthorizeOperator (signed by its payoutRecipient) and MsgUpdateNode (signed by its operator;
 * the node's payout recipient moves only to the operator itself or to an address that authorized
 * it; an empty payout recipient or label leaves that field unchanged). All messages of a
 * transaction apply or none. Any other message type is assumed to succeed and changes nothing.
 *
 * The answer is shaped like BROADCAST_MODE_SYNC's `tx_response`, but carries the block's result
 * (a real sync broadcast reports only CheckTx, so a refused message would show in the look-up).
 */
import { badRequest } from "./cosmos-errors.ts";
import { ModuleError } from "./incentives-errors.ts";
import type { Ledger } from "./ledger.ts";
import { sequenceAt } from "./accounts.ts";
import type { TxMessage } from "./tx-log.ts";

/** What the broadcast answers: `tx_response` with the fields the network's wallet reads, plus the height. */
export interface BroadcastAnswer {
  tx_response: { txhash: string; code: number; codespace: string; raw_log: string; height: string };
}

function parseMessages(input: unknown): TxMessage[] {
  const valid =
    Array.isArray(input) &&
    input.length > 0 &&
    input.every(
      (m) =>
        typeof m === "object" &&
        m !== null &&
        typeof m.typeUrl === "string" &&
        m.typeUrl.startsWith("/") &&
        typeof m.value === "object" &&
        m.value !== null &&
        !Array.isArray(m.value),
    );
  if (!valid)
    throw badRequest(
      "messages must be a non-empty array of {typeUrl, value} with a type URL starting with / and an object value",
    );
  return (input as TxMessage[]).map((m) => ({ typeUrl: m.typeUrl, value: m.value }));
}

/** A message the devnet models: who must sign it, and how it changes the ledger at a height. */
interface Modelled {
  signer: string;
  apply(height: number): void;
}

/** Reads a modelled message's fields (bad form is the node's 400); null for a type the devnet does not model. */
function model(ledger: Ledger, message: TxMessage): Modelled | null {
  const incentives = `/${ledger.brand.namespace}.incentives.v1`;
  const { value } = message;
  if (message.typeUrl === `${incentives}.MsgAuthorizeOperator`) {
    const request = ledger.parseAuthorization({
      payout_recipient: value.payoutRecipient,
      operator: value.operator,
      label: value.label,
    });
    return { signer: request.payout_recipient, apply: (height) => void ledger.authorize(request, height) };
  }
  if (message.typeUrl === `${incentives}.MsgUpdateNode`) {
    const change = ledger.parseNodeChange(value);
    return { signer: change.operator, apply: (height) => ledger.updateNode(change, height) };
  }
  return null;
}

/** Checks, applies and records one transaction; bad input is a 400 that changes nothing. */
export function broadcast(ledger: Ledger, body: Record<string, unknown>): BroadcastAnswer {
  const signer = ledger.checkAddress(typeof body.signer === "string" ? body.signer : "");
  const memo = body.memo ?? "";
  if (typeof memo !== "string") throw badRequest("memo must be a string");
  const messages = parseMessages(body.messages);
  const modelled = messages.map((m) => model(ledger, m));

  const height = ledger.nextHeight();
  const { raw, hash } = ledger.txs.mint(JSON.stringify([signer, memo, messages, height]));
  const answer = (code: number, codespace: string, rawLog: string, included: number): BroadcastAnswer => ({
    tx_response: { txhash: hash, code, codespace, raw_log: rawLog, height: String(included) },
  });

  // CheckTx: a message signed for someone else fails the stock ante handler and never reaches a block.
  const foreign = modelled.find((m) => m !== null && m.signer !== signer);
  if (foreign)
    return answer(
      8,
      "sdk",
      `pubKey does not match signer address ${foreign.signer} with signer index: 0: invalid pubkey`,
      0,
    );

  const rollback = ledger.snapshot();
  let failure: { index: number; error: ModuleError } | null = null;
  for (const [index, message] of modelled.entries()) {
    if (!message) continue;
    try {
      message.apply(height);
    } catch (error) {
      if (!(error instanceof ModuleError)) throw error;
      failure = { index, error };
      rollback();
      break;
    }
  }
  const code = failure?.error.registered.code ?? 0;
  const codespace = failure?.error.registered.codespace ?? "";
  // The SDK's wording for a message that failed inside a block.
  const rawLog = failure ? `failed to execute message; message index: ${failure.index}: ${failure.error.message}` : "";
  ledger.txs.add({
    hash,
    raw,
    height,
    timestamp: ledger.blockTime(height),
    signer,
    sequence: sequenceAt(ledger, signer),
    memo,
    messages,
    code,
    codespace,
    rawLog,
  });
  return answer(code, codespace, rawLog, height);
}

/**
 * Records a successful transaction of the control routes' own (an authorization or a node
 * registration made through `/__devnet/…`), already applied at `height`, so the block at that
 * height carries it like any other.
 */
export function recordApplied(ledger: Ledger, signer: string, message: TxMessage, height: number): string {
  const { raw, hash } = ledger.txs.mint(JSON.stringify([signer, "", [message], height]));
  ledger.txs.add({
    hash,
    raw,
    height,
    timestamp: ledger.blockTime(height),
    signer,
    sequence: sequenceAt(ledger, signer),
    memo: "",
    messages: [message],
    code: 0,
    codespace: "",
    rawLog: "",
  });
  return hash;
}

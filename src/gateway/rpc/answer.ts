/**
 * A CometBFT node's reply as the gateway keeps it. The node's JSON-RPC `result` or `error` is
 * the answer, stored as that one member (`"result":{…}`), so an answer to any caller is the
 * member with the caller's own id around it. A JSON-RPC error, or an `abci_query` whose
 * `response.code` is not 0, is the node refusing the query: kept for the row's 4xx time, like
 * an LCD's 4xx. A node answers a URI-style call's error with HTTP 500; the body decides, not the status.
 */
import type { ReadAnswer } from "../upstreams";

/** Status under which a node's refusal (JSON-RPC error, or a non-zero ABCI code) is kept. */
export const RPC_REFUSAL_STATUS = 400;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** A height the answer reports, as the JSON of CometBFT writes an int64 (a decimal string). */
function heightIn(value: unknown): number | null {
  return typeof value === "string" && /^\d{1,15}$/.test(value) ? Number(value) : null;
}

/** The block height a latest-state answer was given at, when it says. */
function answerHeight(result: Json): number | null {
  const response = isObject(result.response) ? result.response : null;
  const sync = isObject(result.sync_info) ? result.sync_info : null;
  const block = isObject(result.block) && isObject(result.block.header) ? result.block.header : null;
  const signed =
    isObject(result.signed_header) && isObject(result.signed_header.header) ? result.signed_header.header : null;
  return (
    heightIn(response?.height) ?? // abci_query
    heightIn(response?.last_block_height) ?? // abci_info
    heightIn(sync?.latest_block_height) ?? // status
    heightIn(block?.height) ?? // block
    heightIn(signed?.height) ?? // commit
    heightIn(result.block_height) ?? // validators
    heightIn(result.height) ?? // block_results
    heightIn(result.last_height) ?? // blockchain
    null
  );
}

/** Reads a node's reply to a URI-style call; `pinned` when the call named its height (its answer is not the latest). */
export function readRpcAnswer(status: number, body: string, pinned: boolean): ReadAnswer {
  if (status === 429 || (status >= 300 && status < 400) || status < 200) return { failure: `answered ${status}` };
  let reply: unknown;
  try {
    reply = JSON.parse(body);
  } catch {
    return { failure: `answered ${status} with a body that is not JSON` };
  }
  if (!isObject(reply) || reply.jsonrpc !== "2.0") return { failure: `answered ${status} without a JSON-RPC reply` };
  if (isObject(reply.error)) {
    return { answer: { status: RPC_REFUSAL_STATUS, body: `"error":${JSON.stringify(reply.error)}`, height: null } };
  }
  if (status >= 400 || !("result" in reply)) return { failure: `answered ${status} without a result` };
  const result = reply.result;
  const refused = isObject(result) && isObject(result.response) && Number(result.response.code ?? 0) !== 0;
  return {
    answer: {
      status: refused ? RPC_REFUSAL_STATUS : 200,
      body: `"result":${JSON.stringify(result)}`,
      height: pinned || !isObject(result) ? null : answerHeight(result),
    },
  };
}

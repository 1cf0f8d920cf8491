/**
 * A CometBFT node's reply as the gateway keeps it. The node's JSON-RPC `result` or `error` is
 * the answer, stored as that one member (`"result":{…}`), so an answer to any caller is the
 * member with the caller's own id around it. A JSON-RPC error, or an `abci_query` whose
 * `response.code` is not 0, is the node refusing the query: kept for the row's 4xx time, like
 * an LCD's 4xx. A node answers a URI-style call's error with HTTP 500; the body decides, not the status,
 * but a -32603 is asked again of the next node first (upstreams.ts).
 */
import type { ReadAnswer } from "../upstream-answer";

/** Status under which a node's refusal (JSON-RPC error, or a non-zero ABCI code) is kept. */
const RPC_REFUSAL_STATUS = 400;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The first height a latest-state answer reports, in its compact JSON: `abci_query`'s
 * `response.height`, `status`'s `latest_block_height`, `abci_info`'s `last_block_height`, the
 * header's of `block` and `commit`, `validators`' `block_height`, `block_results`' `height`.
 * Answers that name no latest height (transactions, searches) are read as pinned.
 */
const HEIGHT = /"(?:latest_block_|last_block_|block_)?height":"(\d{1,15})"/;

/**
 * Reads a node's reply to a URI-style call; `pinned` when the answer is not the latest state (it has no height to
 * keep).
 */
export function readRpcAnswer(status: number, body: string, pinned: boolean): ReadAnswer {
  if (status === 429 || status < 200 || (status >= 300 && status < 400)) return { failure: `answered ${status}` };
  let reply: unknown;
  try {
    reply = JSON.parse(body);
  } catch {
    return { failure: `answered ${status} with a body that is not JSON` };
  }
  if (!isObject(reply) || reply.jsonrpc !== "2.0") return { failure: `answered ${status} without a JSON-RPC reply` };
  if (isObject(reply.error)) {
    const answer = { status: RPC_REFUSAL_STATUS, body: `"error":${JSON.stringify(reply.error)}`, height: null };
    // -32603 is the node's own failure as often as the query's (a lagging node's "height must be less than or equal
    // to the current blockchain height", a store error): the next node is asked before it is served.
    return reply.error.code === -32603 ? { answer, askNext: `answered ${status} with -32603` } : { answer };
  }
  const result = reply.result;
  if (status >= 400 || !isObject(result)) return { failure: `answered ${status} without a result` };
  const text = JSON.stringify(result);
  const refused = isObject(result.response) && Number(result.response.code ?? 0) !== 0;
  const height = pinned ? undefined : HEIGHT.exec(text)?.[1];
  return {
    answer: {
      status: refused ? RPC_REFUSAL_STATUS : 200,
      body: `"result":${text}`,
      // A height of 0 names no block (an empty chain, a refusal that reports none).
      height: height === undefined || Number(height) === 0 ? null : Number(height),
    },
  };
}

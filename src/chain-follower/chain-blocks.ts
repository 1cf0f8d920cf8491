/**
 * The follower's reads of the chain, through the gateway's upstream machinery (failover in the
 * board's order, per-attempt timeouts and the total budget, the provider's auth header): the
 * latest height, and the messages of one block's transactions. Stock Cosmos SDK endpoints only;
 * none of them is a route of the public gateway. Every answer is parsed for what is read of it
 * (zod); one without it is a BlockReadError (the pass fails and is tried again), never an empty block.
 */
import * as z from "zod/mini";
import type { UpstreamBoard } from "../gateway/upstream-board";
import { askUpstreams, type UpstreamSettings } from "../gateway/upstreams";
import { ChainAnswerError, chainJson, parseChainAnswer } from "../protocol/index";
import { stringsIn } from "./machine";

/** Transactions asked per page (the SDK's default page size). */
const PAGE = 100;
/** Pages read of one block at most: 10,000 transactions. */
const MAX_PAGES = 100;

/** Why a read gave no usable answer (the pass fails and is tried again). */
export class BlockReadError extends Error {}

/** A height as protobuf JSON writes an int64 (a string), or as a number. */
const height = z.union([z.string(), z.number()]);
/** A block as GetLatestBlock and GetBlockByHeight answer it: its height, and its transactions as bytes. */
const block = z.looseObject({
  header: z.looseObject({ height }),
  data: z.optional(z.looseObject({ txs: z.optional(z.nullable(z.array(z.string()))) })),
});
const blockAnswer = z.looseObject({ block: z.optional(block), sdk_block: z.optional(block) });
/** A decoded transaction: the messages of its body are what the follower reads. */
const tx = z.looseObject({ body: z.looseObject({ messages: z.array(z.unknown()) }) });
const count = z.optional(z.nullable(height));
/** GetBlockWithTxs. */
const blockWithTxs = z.looseObject({
  txs: z.array(tx),
  pagination: z.optional(z.nullable(z.looseObject({ total: count }))),
});
/** GetTxsEvent: the transactions, and the height each was included at. */
const txSearch = z.looseObject({
  txs: z.array(tx),
  tx_responses: z.optional(z.nullable(z.array(z.looseObject({ height })))),
  total: count,
});

/** The answer's body, parsed with `schema`; a BlockReadError when it is not JSON or lacks what is read of it. */
function read<S extends z.ZodMiniType>(schema: S, body: string, what: string): z.output<S> {
  try {
    return parseChainAnswer(schema, chainJson(body, what), what);
  } catch (err) {
    if (err instanceof ChainAnswerError) throw new BlockReadError(err.message);
    throw err;
  }
}

/** The chain's latest height: GetLatestBlock's `block.header.height` (`sdk_block` as well on newer nodes). */
export async function readHead(config: UpstreamSettings, board: UpstreamBoard): Promise<number> {
  const path = "/cosmos/base/tendermint/v1beta1/blocks/latest";
  const answer = await askUpstreams(config, { upstreamPath: path, height: null }, board);
  if (answer.status !== 200) throw new BlockReadError(`the latest block answered ${answer.status}`);
  const body = read(blockAnswer, answer.body, "The latest block");
  const head = Number((body.block ?? body.sdk_block)?.header.height);
  if (!Number.isSafeInteger(head) || head < 1) throw new BlockReadError("the latest block answered without a height");
  return head;
}

/**
 * Every string value in the messages of the transactions of block `height`, from GetBlockWithTxs
 * (decoded messages, no transaction indexer needed), page by page; a node that does not serve it
 * (a 4xx answer) is asked GetTxsEvent with `query=tx.height=H` instead. Null when that search
 * does not show the block yet (the node's transaction index trails its head): the follower stays
 * before this block and reads it again on its next pass.
 */
export async function readBlockStrings(
  config: UpstreamSettings,
  board: UpstreamBoard,
  height: number,
): Promise<string[] | null> {
  const strings: string[] = [];
  for (let page = 0; page < MAX_PAGES; page++) {
    const path = `/cosmos/tx/v1beta1/txs/block/${height}?pagination.offset=${page * PAGE}&pagination.limit=${PAGE}`;
    const answer = await askUpstreams(config, { upstreamPath: path, height: null }, board);
    if (answer.status !== 200) return page === 0 ? searchByHeight(config, board, height) : fail(height, answer.status);
    const body = read(blockWithTxs, answer.body, `Block ${height}'s transactions`);
    for (const t of body.txs) strings.push(...stringsIn(t.body.messages));
    if (!(Number(body.pagination?.total) > (page + 1) * PAGE) || body.txs.length === 0) return strings;
  }
  return strings;
}

/**
 * The search fallback. The node's transaction index can trail its head, and then answers an empty
 * search for a block that holds transactions; so the block itself (GetBlockByHeight, served
 * without the index) says how many it holds, and a search that shows fewer is "not yet" (null),
 * never an empty block. A transaction the search answers at another height fails the read.
 */
async function searchByHeight(config: UpstreamSettings, board: UpstreamBoard, height: number) {
  const held = await blockTxCount(config, board, height);
  if (held === 0) return [];
  const strings: string[] = [];
  let found = 0;
  for (let page = 1; page <= MAX_PAGES; page++) {
    const path = `/cosmos/tx/v1beta1/txs?query=${encodeURIComponent(`tx.height=${height}`)}&page=${page}&limit=${PAGE}`;
    const answer = await askUpstreams(config, { upstreamPath: path, height: null }, board);
    if (answer.status !== 200) return fail(height, answer.status);
    const body = read(txSearch, answer.body, `The search of block ${height}'s transactions`);
    const other = body.tx_responses?.find((r) => Number(r.height) !== height);
    if (other)
      throw new BlockReadError(`the search for block ${height} answered a transaction of block ${other.height}`);
    for (const t of body.txs) strings.push(...stringsIn(t.body.messages));
    found += body.txs.length;
    if (!(Number(body.total) > page * PAGE) || body.txs.length === 0) break;
  }
  if (found > held)
    throw new BlockReadError(`the search for block ${height} answered ${found} of its ${held} transactions`);
  return found < held ? null : strings;
}

/** How many transactions block `height` holds, from the block itself. */
async function blockTxCount(config: UpstreamSettings, board: UpstreamBoard, height: number): Promise<number> {
  const path = `/cosmos/base/tendermint/v1beta1/blocks/${height}`;
  const answer = await askUpstreams(config, { upstreamPath: path, height: null }, board);
  if (answer.status !== 200) throw new BlockReadError(`block ${height} answered ${answer.status}`);
  const body = read(blockAnswer, answer.body, `Block ${height}`);
  const found = body.block ?? body.sdk_block;
  if (found === undefined || Number(found.header.height) !== height)
    throw new BlockReadError(`block ${height} answered another block`);
  return found.data?.txs?.length ?? 0;
}

function fail(height: number, status: number): never {
  throw new BlockReadError(`block ${height}'s transactions answered ${status} without a list of transactions`);
}

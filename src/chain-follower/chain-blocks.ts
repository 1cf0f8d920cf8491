/**
 * The follower's reads of the chain, through the gateway's upstream machinery (failover in the
 * board's order, per-attempt timeouts and the total budget, the provider's auth header): the
 * latest height, and the messages of one block's transactions. Stock Cosmos SDK endpoints only;
 * none of them is a route of the public gateway.
 */
import type { UpstreamBoard } from "../gateway/upstream-board";
import { askUpstreams, type UpstreamSettings } from "../gateway/upstreams";
import { stringsIn } from "./machine";

/** Transactions asked per page (the SDK's default page size). */
const PAGE = 100;
/** Pages read of one block at most: 10,000 transactions. */
const MAX_PAGES = 100;

/** Why a read gave no usable answer (the pass fails and is tried again). */
export class BlockReadError extends Error {}

function parse(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return null;
  }
}

/** The chain's latest height: GetLatestBlock's `block.header.height` (`sdk_block` as well on newer nodes). */
export async function readHead(config: UpstreamSettings, board: UpstreamBoard): Promise<number> {
  const answer = await askUpstreams(
    config,
    { upstreamPath: "/cosmos/base/tendermint/v1beta1/blocks/latest", height: null },
    board,
  );
  const body = parse(answer.body) as {
    block?: { header?: { height?: unknown } };
    sdk_block?: { header?: { height?: unknown } };
  } | null;
  const height = Number(body?.block?.header?.height ?? body?.sdk_block?.header?.height);
  if (answer.status !== 200 || !Number.isSafeInteger(height) || height < 1)
    throw new BlockReadError(`the latest block answered ${answer.status} without a height`);
  return height;
}

/**
 * Every string value in the messages of the transactions of block `height`, from GetBlockWithTxs
 * (decoded messages, no transaction indexer needed), page by page; a node that does not serve it
 * (a 4xx answer) is asked GetTxsEvent with `query=tx.height=H` instead.
 */
export async function readBlockStrings(
  config: UpstreamSettings,
  board: UpstreamBoard,
  height: number,
): Promise<string[]> {
  const strings: string[] = [];
  for (let page = 0; page < MAX_PAGES; page++) {
    const path = `/cosmos/tx/v1beta1/txs/block/${height}?pagination.offset=${page * PAGE}&pagination.limit=${PAGE}`;
    const answer = await askUpstreams(config, { upstreamPath: path, height: null }, board);
    if (answer.status !== 200) return page === 0 ? searchByHeight(config, board, height) : fail(height, answer.status);
    const body = parse(answer.body) as { txs?: unknown; pagination?: { total?: unknown } } | null;
    if (!Array.isArray(body?.txs)) return fail(height, answer.status);
    for (const tx of body.txs)
      strings.push(...stringsIn((tx as { body?: { messages?: unknown } } | null)?.body?.messages));
    const total = Number(body.pagination?.total);
    if (!(total > (page + 1) * PAGE) || body.txs.length === 0) return strings;
  }
  return strings;
}

async function searchByHeight(config: UpstreamSettings, board: UpstreamBoard, height: number): Promise<string[]> {
  const strings: string[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const path = `/cosmos/tx/v1beta1/txs?query=${encodeURIComponent(`tx.height=${height}`)}&page=${page}&limit=${PAGE}`;
    const answer = await askUpstreams(config, { upstreamPath: path, height: null }, board);
    const body = parse(answer.body) as { txs?: unknown; total?: unknown } | null;
    if (answer.status !== 200 || !Array.isArray(body?.txs)) return fail(height, answer.status);
    for (const tx of body.txs)
      strings.push(...stringsIn((tx as { body?: { messages?: unknown } } | null)?.body?.messages));
    if (!(Number(body.total) > page * PAGE) || body.txs.length === 0) return strings;
  }
  return strings;
}

function fail(height: number, status: number): never {
  throw new BlockReadError(`block ${height}'s transactions answered ${status} without a list of transactions`);
}

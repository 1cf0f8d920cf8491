/**
 * The devnet's blocks in CometBFT 0.38's RPC JSON (hashes in upper-case hex, int64s as strings),
 * and the two range reads over them, as CometBFT's rpc/core/blocks.go serves them:
 *
 * - `blockchain(minHeight, maxHeight)`: the block metas from maxHeight down to minHeight, at most
 *   20, highest first; 0 or absent means the lowest kept block and the latest, a maxHeight above
 *   the latest is the latest, a minHeight below the lowest kept block is that block;
 * - `block_search(query, page, per_page, order_by)`: the blocks whose height matches the query,
 *   30 a page (at most 100), highest first unless `order_by` is "asc".
 *
 * The devnet's blocks carry no FinalizeBlock events, so a search matches on `block.height` only:
 * a well-formed condition on any other key matches no block, as on a node whose blocks emit no
 * such event; a query that does not parse is refused. Simplified: `block_size` is the size of the
 * block's JSON, not of its protobuf encoding.
 */
import { hashOf, SIGNERS, consensusAddress } from "./blocks.ts";
import { int, RpcFailure, type Params } from "./comet-failure.ts";
import type { Ledger } from "./ledger.ts";
import { seedBytes } from "./seeds.ts";

const hex = (bytes: Buffer) => bytes.toString("hex").toUpperCase();
const b64 = (bytes: Buffer) => bytes.toString("base64");

function blockId(ledger: Ledger, height: number) {
  if (height < 1) return { hash: "", parts: { total: 0, hash: "" } };
  return {
    hash: hex(hashOf(ledger, "block", height)),
    parts: { total: 1, hash: hex(hashOf(ledger, "parts", height)) },
  };
}

export function header(ledger: Ledger, height: number) {
  const previous = height - 1;
  return {
    version: { block: "11", app: "0" },
    chain_id: ledger.brand.chainId,
    height: String(height),
    time: ledger.blockTime(height),
    last_block_id: blockId(ledger, previous),
    last_commit_hash: hex(hashOf(ledger, "commit", previous)),
    data_hash: hex(hashOf(ledger, "data", height)),
    validators_hash: hex(hashOf(ledger, "validators", 0)),
    next_validators_hash: hex(hashOf(ledger, "validators", 0)),
    consensus_hash: hex(hashOf(ledger, "consensus", 0)),
    app_hash: hex(hashOf(ledger, "app", previous)),
    last_results_hash: hex(hashOf(ledger, "results", previous)),
    evidence_hash: hex(hashOf(ledger, "evidence", 0)),
    proposer_address: hex(consensusAddress(height % SIGNERS.length)),
  };
}

/** The commit of the block at `height` (as the next block carries it). */
export function commit(ledger: Ledger, height: number) {
  return {
    height: String(Math.max(height, 0)),
    round: 0,
    block_id: blockId(ledger, height),
    signatures: SIGNERS.map((i) => ({
      block_id_flag: 2,
      validator_address: hex(consensusAddress(i)),
      timestamp: ledger.blockTime(height + 1),
      signature: b64(seedBytes(`commit-sig-${i}-${height}`, 64)),
    })),
  };
}

/** The `block` method's result at `height`. */
export function blockResult(ledger: Ledger, height: number) {
  return {
    block_id: blockId(ledger, height),
    block: {
      header: header(ledger, height),
      data: { txs: ledger.txs.inBlock(height).map((tx) => b64(tx.raw)) },
      evidence: { evidence: [] },
      last_commit: commit(ledger, height - 1),
    },
  };
}

/** Most block metas one `blockchain` call returns. */
const BLOCKCHAIN_LIMIT = 20;

/** CometBFT's filterMinMax: the range `blockchain` answers, or its refusal. */
function range(lowest: number, latest: number, min: number, max: number): [number, number] {
  if (min < 0 || max < 0) throw new RpcFailure(-32603, "heights must be non-negative");
  const top = max === 0 ? latest : Math.min(latest, max);
  let bottom = Math.max(lowest, min === 0 ? 1 : min);
  bottom = Math.max(bottom, top - BLOCKCHAIN_LIMIT + 1);
  if (bottom > top) throw new RpcFailure(-32603, `min height ${bottom} can't be greater than max height ${top}`);
  return [bottom, top];
}

export function blockchain(ledger: Ledger, params: Params, latest: number) {
  const [bottom, top] = range(
    ledger.lowestBlock(latest),
    latest,
    int(params, "minHeight") ?? 0,
    int(params, "maxHeight") ?? 0,
  );
  const metas = [];
  for (let height = top; height >= bottom; height--) {
    const { block_id, block } = blockResult(ledger, height);
    metas.push({
      block_id,
      block_size: String(Buffer.byteLength(JSON.stringify(block))),
      header: block.header,
      num_txs: String(block.data.txs.length),
    });
  }
  return { last_height: String(latest), block_metas: metas };
}

/** One condition of CometBFT's query language: `key op operand`, the operand a number or a quoted string. */
const CONDITION = /^\s*([A-Za-z_][\w.]*)\s*(?:(<=|>=|=|<|>|CONTAINS)\s*(-?\d+(?:\.\d+)?|'[^']*')|(EXISTS))\s*$/;

/** The heights from `lowest` to `latest` that `query` matches, ascending. */
function matching(query: string, lowest: number, latest: number): number[] {
  let heights = Array.from({ length: Math.max(0, latest - lowest + 1) }, (_, i) => lowest + i);
  for (const part of query.split(/\s+AND\s+/)) {
    const condition = CONDITION.exec(part);
    if (!condition) throw new RpcFailure(-32603, `failed to parse query ${JSON.stringify(query)}`);
    const [, key, op, operand, exists] = condition;
    if (key !== "block.height") {
      heights = [];
      continue;
    }
    if (exists) continue;
    const n = Number(operand!.replace(/'/g, ""));
    if (op === "CONTAINS" || !Number.isFinite(n)) {
      heights = [];
      continue;
    }
    const keep: Record<string, (h: number) => boolean> = {
      "=": (h) => h === n,
      "<": (h) => h < n,
      "<=": (h) => h <= n,
      ">": (h) => h > n,
      ">=": (h) => h >= n,
    };
    heights = heights.filter(keep[op!]!);
  }
  return heights;
}

export function blockSearch(ledger: Ledger, params: Params, latest: number) {
  const query = typeof params.query === "string" ? params.query : "";
  const order = params.order_by ?? "";
  if (order !== "" && order !== "asc" && order !== "desc")
    throw new RpcFailure(-32603, "expected order_by to be either `asc` or `desc` or empty");
  const found = matching(query, ledger.lowestBlock(latest), latest);
  if (order !== "asc") found.reverse();
  const asked = int(params, "per_page");
  const perPage = asked === null || asked < 1 ? 30 : Math.min(asked, 100);
  const pages = Math.max(1, Math.floor((found.length - 1) / perPage) + 1);
  const page = int(params, "page") ?? 1;
  if (page <= 0 || page > pages)
    throw new RpcFailure(-32603, `page should be within [1, ${pages}] range, given ${page}`);
  const shown = found.slice((page - 1) * perPage, page * perPage);
  return { blocks: shown.map((height) => blockResult(ledger, height)), total_count: String(found.length) };
}

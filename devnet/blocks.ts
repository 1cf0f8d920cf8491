/**
 * Blocks and the transactions in them, as a Cosmos SDK 0.50 node serves them over REST:
 *
 * - `GET /cosmos/base/tendermint/v1beta1/blocks/latest` and `/blocks/{height}` (GetLatestBlock,
 *   GetBlockByHeight): `{block_id, block, sdk_block}`, the block's transactions as base64 bytes;
 * - `GET /cosmos/tx/v1beta1/txs/block/{height}` (GetBlockWithTxs): `{txs, block_id, block,
 *   pagination}`, the transactions decoded (works without the node's transaction indexer);
 * - `GET /cosmos/tx/v1beta1/txs?query=tx.height=H` (GetTxsEvent, `query` since SDK 0.50):
 *   `{txs, tx_responses, pagination: null, total}`.
 *
 * A block exists from the height the devnet started at (a node that joined by state sync keeps
 * none before that) and, with `retainBlocks`, only that many back from the latest (a pruning node).
 * Simplified: hashes are derived from the height and the chain id, not computed from the header;
 * the transactions' bytes are the devnet's own encoding whose SHA-256 is the transaction hash, as a
 * node's is; every bonded validator signs every commit. The error texts are the SDK's and
 * CometBFT's; their gRPC codes for the CometBFT ones (code 2, HTTP 500) are assumed.
 */
import { toBech32 } from "@cosmjs/encoding";
import { badRequest, Code, DevnetError } from "./cosmos-errors.ts";
import { parseUint64 } from "./go-parse.ts";
import type { Ledger } from "./ledger.ts";
import type { ModuleRoute } from "./route.ts";
import { DEFAULT_LIMIT } from "./pagination.ts";
import { seedBytes } from "./seeds.ts";
import { txJson } from "./tx-json.ts";

/** Validators that sign every commit (the bonded ones of the devnet's four). */
export const SIGNERS = [0, 1, 2];

const b64 = (bytes: Buffer) => bytes.toString("base64");
export const hashOf = (ledger: Ledger, what: string, height: number) =>
  seedBytes(`${what}-${ledger.brand.chainId}-${height}`, 32);
export const consensusAddress = (i: number) => seedBytes(`cons-addr-${i}`, 20);

/** Protobuf JSON's Timestamp: RFC 3339 in UTC with the fraction's trailing zeros trimmed. */
const timestamp = (ledger: Ledger, height: number) => ledger.blockTime(height);

function blockId(ledger: Ledger, height: number) {
  return {
    hash: b64(hashOf(ledger, "block", height)),
    part_set_header: { total: 1, hash: b64(hashOf(ledger, "parts", height)) },
  };
}

/** The block at `height` in CometBFT's protobuf JSON; `sdk` writes the proposer as a valcons address, as `sdk_block` does. */
function blockJson(ledger: Ledger, height: number, sdk: boolean) {
  const proposer = consensusAddress(height % SIGNERS.length);
  const previous = height - 1;
  return {
    header: {
      version: { block: "11", app: "0" },
      chain_id: ledger.brand.chainId,
      height: String(height),
      time: timestamp(ledger, height),
      last_block_id: previous >= 1 ? blockId(ledger, previous) : { hash: "", part_set_header: { total: 0, hash: "" } },
      last_commit_hash: b64(hashOf(ledger, "commit", previous)),
      data_hash: b64(hashOf(ledger, "data", height)),
      validators_hash: b64(hashOf(ledger, "validators", 0)),
      next_validators_hash: b64(hashOf(ledger, "validators", 0)),
      consensus_hash: b64(hashOf(ledger, "consensus", 0)),
      app_hash: b64(hashOf(ledger, "app", previous)),
      last_results_hash: b64(hashOf(ledger, "results", previous)),
      evidence_hash: b64(hashOf(ledger, "evidence", 0)),
      proposer_address: sdk ? toBech32(`${ledger.brand.bech32Prefix}valcons`, proposer) : b64(proposer),
    },
    data: { txs: ledger.txs.inBlock(height).map((tx) => b64(tx.raw)) },
    evidence: { evidence: [] },
    last_commit: {
      height: String(Math.max(previous, 0)),
      round: 0,
      block_id: previous >= 1 ? blockId(ledger, previous) : { hash: "", part_set_header: { total: 0, hash: "" } },
      signatures: SIGNERS.map((i) => ({
        block_id_flag: "BLOCK_ID_FLAG_COMMIT",
        validator_address: b64(consensusAddress(i)),
        timestamp: timestamp(ledger, height),
        signature: b64(seedBytes(`commit-sig-${i}-${previous}`, 64)),
      })),
    },
  };
}

/** CometBFT's refusal of a height it does not hold (pruned, or from before the devnet started). */
export function checkAvailable(ledger: Ledger, height: number, latest: number): void {
  const lowest = ledger.lowestBlock(latest);
  if (height < lowest)
    throw new DevnetError(500, Code.UNKNOWN, `height ${height} is not available, lowest height is ${lowest}`);
}

/** A path's int64 height as grpc-gateway parses it (`strconv.ParseInt(v, 0, 64)`), or the node's 400. */
function parseInt64(name: string, raw: string): number {
  if (!/^[+-]?\d+$/.test(raw) || BigInt(raw) > 0x7fff_ffff_ffff_ffffn || BigInt(raw) < -0x8000_0000_0000_0000n) {
    throw badRequest(
      `type mismatch, parameter: ${name}, error: strconv.ParseInt: parsing ${JSON.stringify(raw)}: invalid syntax`,
    );
  }
  return Number(raw);
}

/** GetLatestBlock / GetBlockByHeight at the node's latest height `latest`. */
function blockAt(ledger: Ledger, height: number, latest: number) {
  if (height > latest) throw badRequest("requested block height is bigger then the chain length");
  if (height <= 0) throw new DevnetError(500, Code.UNKNOWN, `height must be greater than 0, but got ${height}`);
  checkAvailable(ledger, height, latest);
  return {
    block_id: blockId(ledger, height),
    block: blockJson(ledger, height, false),
    sdk_block: blockJson(ledger, height, true),
  };
}

/** GetBlockWithTxs: the block and its transactions decoded, paged by `pagination.offset` / `pagination.limit`. */
function blockWithTxs(ledger: Ledger, height: number, latest: number, query: URLSearchParams) {
  if (height < 1 || height > latest) {
    throw new DevnetError(
      500,
      Code.UNKNOWN,
      `requested height ${height} but height must not be less than 1 or greater than the current height ${latest}: invalid height`,
    );
  }
  checkAvailable(ledger, height, latest);
  const read = (name: string) => {
    const raw = query.get(`pagination.${name}`);
    return raw === null || raw === "" ? 0 : Number(parseUint64(raw));
  };
  const offset = read("offset");
  const limit = read("limit") || DEFAULT_LIMIT;
  const all = ledger.txs.inBlock(height);
  if (offset >= all.length && all.length !== 0) {
    throw new DevnetError(
      400,
      Code.INVALID_ARGUMENT,
      `out of range: cannot paginate ${all.length} txs with offset ${offset} and limit ${limit}: invalid request`,
    );
  }
  return {
    txs: all.slice(offset, offset + limit).map((record) => txJson(ledger, record).tx),
    block_id: blockId(ledger, height),
    block: blockJson(ledger, height, false),
    pagination: { next_key: null, total: String(all.length) },
  };
}

const ORDER = new Map([
  ["", "asc"],
  ["0", "asc"],
  ["ORDER_BY_UNSPECIFIED", "asc"],
  ["1", "asc"],
  ["ORDER_BY_ASC", "asc"],
  ["2", "desc"],
  ["ORDER_BY_DESC", "desc"],
]);

/**
 * GetTxsEvent with `query=tx.height=H` (the one search the devnet models; any other is its 501),
 * `page` (from 1) and `limit` (default 100), oldest first unless `order_by=ORDER_BY_DESC`.
 */
function txsEvent(ledger: Ledger, query: URLSearchParams, latest: number) {
  const search = query.get("query") ?? "";
  if (search === "") throw badRequest("query cannot be empty");
  const byHeight = /^\s*tx\.height\s*=\s*(\d+)\s*$/.exec(search);
  if (!byHeight)
    throw new DevnetError(
      501,
      Code.UNIMPLEMENTED,
      `the devnet searches transactions by tx.height=<n> only, not ${JSON.stringify(search)}`,
    );
  const order = ORDER.get(query.get("order_by") ?? "");
  if (order === undefined)
    throw badRequest(`invalid value for enum field order_by: ${JSON.stringify(query.get("order_by"))}`);
  const page = Number(parseUint64(query.get("page") || "0")) || 1;
  const limit = Number(parseUint64(query.get("limit") || "0")) || DEFAULT_LIMIT;
  const height = Number(byHeight[1]);
  const found = height <= latest ? [...ledger.txs.inBlock(height)] : [];
  if (order === "desc") found.reverse();
  const pages = Math.max(1, Math.ceil(found.length / limit));
  if (page > pages)
    throw new DevnetError(500, Code.UNKNOWN, `page should be within [1, ${pages}] range, given ${page}`);
  const shown = found.slice((page - 1) * limit, page * limit).map((record) => txJson(ledger, record));
  return {
    txs: shown.map((t) => t.tx),
    tx_responses: shown.map((t) => t.tx_response),
    pagination: null,
    total: String(found.length),
  };
}

export const BLOCK_ROUTES: readonly ModuleRoute[] = [
  { path: "/cosmos/base/tendermint/v1beta1/blocks/latest", answer: (l, _p, _q, h) => blockAt(l, h, h) },
  {
    path: "/cosmos/base/tendermint/v1beta1/blocks/:height",
    answer: (l, p, _q, h) => blockAt(l, parseInt64("height", p.height!), h),
  },
  {
    path: "/cosmos/tx/v1beta1/txs/block/:height",
    answer: (l, p, q, h) => blockWithTxs(l, parseInt64("height", p.height!), h, q),
  },
  { path: "/cosmos/tx/v1beta1/txs", answer: (l, _p, q, h) => txsEvent(l, q, h) },
];

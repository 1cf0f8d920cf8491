/**
 * The devnet's CometBFT RPC face under `/rpc`, with the same state as its REST face, as a
 * CometBFT 0.38 node serves it: JSON-RPC 2.0 by POST (one call or a batch, HTTP 200 even for a
 * method's error) and the URI style by GET (`/rpc/<method>?<params>`, id -1, HTTP 500 for a
 * method's error). Blocks, commits, validators and transactions in CometBFT's JSON (hashes in
 * upper-case hex, event attributes as strings); `abci_query` answers real protobuf (comet-abci.ts).
 * Transaction searches model `tx.hash='…'` and `tx.height=N` only; block reads and block searches
 * are comet-blocks.ts. Simplified as the REST face is: hashes
 * derived from the height, every bonded validator signs every commit.
 */
import { abciQuery } from "./comet-abci.ts";
import { checkAvailable, consensusAddress, hashOf, SIGNERS } from "./blocks.ts";
import { blockResult, blockSearch, blockchain, commit, header } from "./comet-blocks.ts";
import { int, RpcFailure, type Params } from "./comet-failure.ts";
import { DevnetError } from "./cosmos-errors.ts";
import type { Ledger } from "./ledger.ts";
import { seedBytes } from "./seeds.ts";
import { txJson } from "./tx-json.ts";
import type { TxRecord } from "./tx-log.ts";

const hex = (bytes: Buffer) => bytes.toString("hex").toUpperCase();
const b64 = (bytes: Buffer) => bytes.toString("base64");

/** The height a method reads: the latest when absent, else one the node holds (CometBFT's refusals). */
function heightOf(ledger: Ledger, params: Params, latest: number): number {
  const asked = int(params, "height");
  if (asked === null) return latest;
  if (asked <= 0) throw new RpcFailure(-32603, `height must be greater than 0, but got ${asked}`);
  if (asked > latest)
    throw new RpcFailure(
      -32603,
      `height ${asked} must be less than or equal to the current blockchain height ${latest}`,
    );
  try {
    checkAvailable(ledger, asked, latest);
  } catch (err) {
    throw new RpcFailure(-32603, (err as DevnetError).message);
  }
  return asked;
}

function validatorPubKey(i: number) {
  return { type: "tendermint/PubKeyEd25519", value: b64(seedBytes(`cons-${i}`, 32)) };
}

/** One transaction as `tx` and `tx_search` write it. */
function txResult(ledger: Ledger, record: TxRecord) {
  const { tx_response: response } = txJson(ledger, record);
  return {
    hash: record.hash,
    height: String(record.height),
    index: ledger.txs.inBlock(record.height).indexOf(record),
    tx_result: {
      code: response.code,
      data: b64(Buffer.from(response.data, "hex")),
      log: response.raw_log,
      info: "",
      gas_wanted: response.gas_wanted,
      gas_used: response.gas_used,
      events: response.events,
      codespace: response.codespace,
    },
    tx: b64(record.raw),
  };
}

/** `tx.hash='…'` or `tx.height=N`, the searches the devnet models. */
function txSearch(ledger: Ledger, params: Params, latest: number) {
  const query = typeof params.query === "string" ? params.query : "";
  const byHash = /^\s*tx\.hash\s*=\s*'([0-9A-Fa-f]{64})'\s*$/.exec(query);
  const byHeight = /^\s*tx\.height\s*=\s*(\d+)\s*$/.exec(query);
  let found: readonly TxRecord[];
  if (byHash) {
    const record = ledger.txs.find(byHash[1]!, latest);
    found = record ? [record] : [];
  } else if (byHeight) found = Number(byHeight[1]) <= latest ? ledger.txs.inBlock(Number(byHeight[1])) : [];
  else
    throw new RpcFailure(
      -32603,
      `the devnet searches tx.hash='<hash>' and tx.height=<n> only, not ${JSON.stringify(query)}`,
    );
  const ordered = params.order_by === "desc" ? [...found].reverse() : found;
  const perPage = int(params, "per_page") ?? 30;
  const page = int(params, "page") ?? 1;
  return {
    txs: ordered.slice((page - 1) * perPage, page * perPage).map((r) => txResult(ledger, r)),
    total_count: String(found.length),
  };
}

/** A transaction hash: base64 in JSON-RPC, `0x`-hex in the URI style. */
function hashParam(params: Params): string {
  const value = params.hash;
  if (typeof value !== "string") throw new RpcFailure(-32602, "error converting json params to arguments: hash");
  return value.startsWith("0x") ? value.slice(2).toUpperCase() : hex(Buffer.from(value, "base64"));
}

type Method = (ledger: Ledger, params: Params, latest: number) => unknown;

/** A JSON-RPC error to answer with. */
type RpcError = { code: number; data: string };

const METHODS: Record<string, Method> = {
  health: () => ({}),
  status: (ledger, _params, latest) => ({
    node_info: {
      protocol_version: { p2p: "8", block: "11", app: "0" },
      id: seedBytes("node-id").toString("hex"),
      listen_addr: "tcp://0.0.0.0:26656",
      network: ledger.brand.chainId,
      version: "0.38.17",
      channels: "40202122233038606100",
      moniker: "devnet",
      other: { tx_index: "on", rpc_address: "tcp://0.0.0.0:26657" },
    },
    sync_info: {
      latest_block_hash: hex(hashOf(ledger, "block", latest)),
      latest_app_hash: hex(hashOf(ledger, "app", latest - 1)),
      latest_block_height: String(latest),
      latest_block_time: ledger.blockTime(latest),
      earliest_block_hash: hex(hashOf(ledger, "block", ledger.lowestBlock(latest))),
      earliest_app_hash: hex(hashOf(ledger, "app", ledger.lowestBlock(latest) - 1)),
      earliest_block_height: String(ledger.lowestBlock(latest)),
      earliest_block_time: ledger.blockTime(ledger.lowestBlock(latest)),
      catching_up: false,
    },
    validator_info: { address: hex(consensusAddress(0)), pub_key: validatorPubKey(0), voting_power: "0" },
  }),
  abci_info: (ledger, _params, latest) => ({
    response: {
      data: "devnet",
      version: "0.50.0",
      app_version: "0",
      last_block_height: String(latest),
      last_block_app_hash: b64(hashOf(ledger, "app", latest - 1)),
    },
  }),
  abci_query: (ledger, params, latest) => {
    const data = typeof params.data === "string" ? params.data.replace(/^0x/, "") : "";
    if (!/^([0-9a-fA-F]{2})*$/.test(data))
      throw new RpcFailure(-32602, "error converting json params to arguments: encoding/hex: invalid byte");
    const asked = int(params, "height") ?? 0;
    if (asked < 0) throw new RpcFailure(-32603, "cannot query with height < 0; please provide a valid height");
    const response = abciQuery(ledger, String(params.path ?? ""), Buffer.from(data, "hex"), asked === 0 ? 0 : asked);
    // A lagging node (height_offset) answers the latest state at its own height.
    return { response: asked === 0 && response.code === 0 ? { ...response, height: String(latest) } : response };
  },
  block: (ledger, params, latest) => blockResult(ledger, heightOf(ledger, params, latest)),
  blockchain,
  block_search: blockSearch,
  commit: (ledger, params, latest) => {
    const height = heightOf(ledger, params, latest);
    return { signed_header: { header: header(ledger, height), commit: commit(ledger, height) }, canonical: true };
  },
  block_results: (ledger, params, latest) => {
    const height = heightOf(ledger, params, latest);
    const txs = ledger.txs.inBlock(height).map((r) => txResult(ledger, r).tx_result);
    return {
      height: String(height),
      txs_results: txs.length ? txs : null,
      finalize_block_events: [],
      validator_updates: [],
      consensus_param_updates: null,
      app_hash: b64(hashOf(ledger, "app", height)),
    };
  },
  validators: (ledger, params, latest) => {
    const height = heightOf(ledger, params, latest);
    const validators = SIGNERS.map((i) => ({
      address: hex(consensusAddress(i)),
      pub_key: validatorPubKey(i),
      voting_power: String(BigInt(ledger.validators()[i]!.tokens) / 1_000_000n),
      proposer_priority: "0",
    }));
    return {
      block_height: String(height),
      validators,
      count: String(validators.length),
      total: String(validators.length),
    };
  },
  tx: (ledger, params, latest) => {
    const hash = hashParam(params);
    const record = ledger.txs.find(hash, latest);
    if (!record) throw new RpcFailure(-32603, `tx (${hash}) not found`);
    return txResult(ledger, record);
  },
  tx_search: txSearch,
};

/** One call's reply object; `failing`: the error every call gets (a fault). */
function answer(ledger: Ledger, latest: number, call: Record<string, unknown>, failing?: RpcError) {
  const id = call.id ?? -1;
  try {
    if (failing) throw new RpcFailure(failing.code, failing.data);
    const method = typeof call.method === "string" ? METHODS[call.method] : undefined;
    if (!method) throw new RpcFailure(-32601, "");
    const params = call.params && typeof call.params === "object" ? (call.params as Params) : {};
    return { jsonrpc: "2.0", id, result: method(ledger, params, latest) };
  } catch (err) {
    if (!(err instanceof RpcFailure)) throw err;
    return { jsonrpc: "2.0", id, error: { code: err.code, message: err.text, data: err.data } };
  }
}

/** The URI style's params: `"…"` strings, everything else as written (numbers, booleans, `0x` bytes). */
function uriParams(search: URLSearchParams): Params {
  const params: Params = {};
  for (const [name, value] of search) params[name] = /^".*"$/.test(value) ? JSON.parse(value) : value;
  return params;
}

/**
 * Answers a request below `/rpc` (`rest`: the path after it; `body` for a POST): HTTP status and
 * reply. `offset` moves the latest height, as a lagging or leading node's; `failing` answers every call with an error.
 */
export function cometRpc(
  ledger: Ledger,
  method: string,
  rest: string,
  search: URLSearchParams,
  body: string,
  offset: number,
  failing?: RpcError,
): { status: number; reply: unknown } {
  const latest = ledger.height() + offset;
  if (method === "POST" && (rest === "" || rest === "/")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return {
        status: 500,
        reply: { jsonrpc: "2.0", id: -1, error: { code: -32700, message: "Parse error. Invalid JSON", data: "" } },
      };
    }
    const reply = Array.isArray(parsed)
      ? parsed.map((call) => answer(ledger, latest, call as Record<string, unknown>, failing))
      : answer(ledger, latest, parsed as Record<string, unknown>, failing);
    return { status: 200, reply };
  }
  if (method !== "GET") throw new DevnetError(405, 12, "Method Not Allowed");
  const reply = answer(ledger, latest, { id: -1, method: rest.slice(1), params: uriParams(search) }, failing);
  const code = "error" in reply ? reply.error?.code : undefined;
  return { status: code === undefined ? 200 : code === -32601 ? 404 : 500, reply };
}

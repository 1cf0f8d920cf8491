/**
 * The CometBFT methods the RPC face serves, each with its parameters checked and written in one
 * canonical URI-style call (`/abci_query?path="…"&data=0x…&height=0&prove=false`): the upstream
 * request and the cache key at once, whatever the caller's spelling and never its JSON-RPC id.
 * Reads only: every other method is refused before any upstream is asked. `abci_query` serves
 * the `Query` services the REST route table names, each method with its row's TTLs.
 */
import type { Config } from "../../config";
import type { AnswerTtls } from "../cache-entry";
import { GATEWAY_ROUTES, HISTORICAL_ANSWER_TTL, answerTtl, grpcMethod, type GatewayRoute } from "../route-table";
import { RpcError } from "./rpc-error";
import { toHex } from "../../protocol/hex";

/** A call's params, as JSON-RPC sends them or as read from a URI-style query. */
export type Params = Record<string, unknown>;

/** A served call in canonical form. */
interface PreparedCall {
  /** `/<method>?<params in fixed order>`, appended to an RPC_UPSTREAM_URLS base. */
  upstreamPath: string;
  ttls: AnswerTtls;
  /** The answer is not the latest state (a named height, a transaction, a search): it has no height to keep. */
  pinned: boolean;
}

type Method = (params: Params, table: AbciTable) => PreparedCall;

/** `status`, `health` and the latest block move every block: a second. */
const SECOND: AnswerTtls = { success: 1, error: 1 };
/** What a past height holds never changes; a refusal (not yet, pruned) is kept a second. */
const IMMUTABLE: AnswerTtls = { success: HISTORICAL_ANSWER_TTL, error: 1 };

const MAX_INT64 = 0x7fff_ffff_ffff_ffffn;

const invalid = (why: string) => new RpcError(-32602, why);

/**
 * An int64 from `min` to `max`, as a JSON number or a decimal string (CometBFT takes both); canonical decimal, or null
 * when absent.
 */
function int(params: Params, name: string, min: number, max = MAX_INT64): string | null {
  const value = params[name];
  if (value === undefined || value === null) return null;
  const text = typeof value === "number" && Number.isSafeInteger(value) ? String(value) : value;
  if (typeof text !== "string" || !/^-?\d{1,19}$/.test(text) || BigInt(text) < BigInt(min) || BigInt(text) > max)
    throw invalid(`${name} must be an integer from ${min} to ${max}`);
  return String(BigInt(text));
}

function bool(params: Params, name: string): boolean {
  const value = params[name] ?? false;
  if (value === true || value === "true") return true;
  if (value === false || value === "false") return false;
  throw invalid(`${name} must be true or false`);
}

function str(params: Params, name: string, max: number, required = false): string | null {
  const value = params[name];
  if ((value === undefined || value === null) && !required) return null;
  if (typeof value !== "string" || value === "" || value.length > max)
    throw invalid(`${name} must be a string of 1 to ${max} characters`);
  return value;
}

/** ABCI query data: hex (CometBFT's HexBytes; `0x` allowed), lower-cased. */
function hexData(params: Params): string {
  const value = params.data ?? "";
  const hex = typeof value === "string" ? value.replace(/^0x/, "") : null;
  if (hex === null || !/^([0-9a-fA-F]{2})*$/.test(hex)) throw invalid("data must be hexadecimal bytes");
  return hex.toLowerCase();
}

/** A transaction hash: base64 of 32 bytes in JSON-RPC, `0x` and 64 hex digits in the URI style; lower-case hex. */
function txHash(params: Params): string {
  const value = params.hash;
  if (typeof value === "string" && /^0x[0-9a-fA-F]{64}$/.test(value)) return value.slice(2).toLowerCase();
  if (typeof value === "string" && /^[A-Za-z0-9+/]{43}=$/.test(value)) {
    return toHex(Uint8Array.from(atob(value), (c) => c.charCodeAt(0)));
  }
  throw invalid("hash must be the base64 (or 0x-hex) of 32 bytes");
}

/** Search queries and ordering, as `tx_search` and `block_search` take them. */
function search(params: Params): string[] {
  const order = str(params, "order_by", 4);
  if (order !== null && order !== "asc" && order !== "desc") throw invalid('order_by must be "asc" or "desc"');
  return [
    `query=${quoted(str(params, "query", 512, true)!)}`,
    ...opt("page", int(params, "page", 1)),
    ...opt("per_page", int(params, "per_page", 1, 100n)),
    ...(order === null ? [] : [`order_by=${quoted(order)}`]),
  ];
}

const quoted = (text: string) => encodeURIComponent(JSON.stringify(text));
const opt = (name: string, value: string | null) => (value === null ? [] : [`${name}=${value}`]);
const call = (method: string, parts: string[]) => (parts.length ? `/${method}?${parts.join("&")}` : `/${method}`);

/** A method without params, fresh for a second. */
const plain =
  (name: string): Method =>
  () => ({ upstreamPath: `/${name}`, ttls: SECOND, pinned: false });

/** A method at an optional height: immutable with one, a second without. */
const atHeight =
  (name: string, more: (params: Params) => string[] = () => []): Method =>
  (params) => {
    const height = int(params, "height", 1);
    const pinned = height !== null;
    return {
      upstreamPath: call(name, [...opt("height", height), ...more(params)]),
      ttls: pinned ? IMMUTABLE : SECOND,
      pinned,
    };
  };

/** Every method the face serves. */
export const RPC_METHODS: Readonly<Record<string, Method>> = {
  status: plain("status"),
  health: plain("health"),
  abci_info: plain("abci_info"),
  abci_query: (params, table) => {
    const path = str(params, "path", 256, true)!;
    const route = table.routeOf(path);
    // 0 is the latest height, as absent.
    const height = int(params, "height", 0) ?? "0";
    const pinned = height !== "0";
    const data = hexData(params);
    const prove = bool(params, "prove");
    return {
      upstreamPath: call("abci_query", [
        `path=${quoted(path)}`,
        ...(data ? [`data=0x${data}`] : []),
        `height=${height}`,
        `prove=${prove}`,
      ]),
      ttls: { success: answerTtl(route, 200, pinned), error: answerTtl(route, 400, pinned) },
      pinned,
    };
  },
  block: atHeight("block"),
  block_results: atHeight("block_results"),
  commit: atHeight("commit"),
  validators: atHeight("validators", (p) => [
    ...opt("page", int(p, "page", 1)),
    ...opt("per_page", int(p, "per_page", 1, 100n)),
  ]),
  blockchain: (params) => ({
    upstreamPath: call("blockchain", [
      ...opt("minHeight", int(params, "minHeight", 1)),
      ...opt("maxHeight", int(params, "maxHeight", 1)),
    ]),
    ttls: SECOND,
    pinned: false,
  }),
  tx: (params, table) => ({
    upstreamPath: call("tx", [`hash=0x${txHash(params)}`, `prove=${bool(params, "prove")}`]),
    // The REST face's transaction row: found is kept a day, not found yet a second.
    ttls: { success: answerTtl(table.txRoute, 200, false), error: answerTtl(table.txRoute, 400, false) },
    pinned: true,
  }),
  tx_search: (params) => ({
    upstreamPath: call("tx_search", [...search(params), `prove=${bool(params, "prove")}`]),
    ttls: SECOND,
    pinned: true,
  }),
  block_search: (params) => ({ upstreamPath: call("block_search", search(params)), ttls: SECOND, pinned: true }),
};

/** The rows `abci_query` reads, by gRPC method, with the namespace filled in. */
export interface AbciTable {
  /** The row whose TTLs a gRPC method takes; throws the refusal for a path outside the served services. */
  routeOf(path: string): GatewayRoute;
  txRoute: GatewayRoute;
  /** The `Query` services served, e.g. `/cosmos.bank.v1beta1.Query`. */
  services: readonly string[];
}

const serviceOf = (grpc: string) => grpc.slice(0, grpc.lastIndexOf("/"));

/**
 * The table for this configuration. A method of a served service that no row names (bank's
 * `Balance`, staking's `Validator`) takes the shortest TTL among its service's rows.
 */
export function abciTable(config: Pick<Config, "namespace">): AbciTable {
  const byMethod = new Map<string, GatewayRoute>();
  const byService = new Map<string, GatewayRoute>();
  for (const route of GATEWAY_ROUTES) {
    const grpc = grpcMethod(route).replace("{ns}", config.namespace);
    byMethod.set(grpc, route);
    const service = serviceOf(grpc);
    // Only modules' Query services: the tx Service's search is unbounded, and it is the `tx` method's.
    if (!service.endsWith(".Query")) continue;
    const shortest = byService.get(service);
    if (!shortest || route.ttl < shortest.ttl) byService.set(service, route);
  }
  const services = [...byService.keys()];
  return {
    services,
    txRoute: byMethod.get("/cosmos.tx.v1beta1.Service/GetTx")!,
    routeOf(path) {
      const service = /^\/[\w.]+\/\w+$/.test(path) ? byService.get(serviceOf(path)) : undefined;
      if (!service)
        throw invalid(`abci_query path ${JSON.stringify(path)} is not served; the services are ${services.join(", ")}`);
      const route = byMethod.get(path);
      return route ?? { ...service, errorTtl: undefined };
    },
  };
}

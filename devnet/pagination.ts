/**
 * Cosmos `PageRequest` query parameters applied to a list the way the SDK's `query.Paginate` walks
 * a store: default limit 100 (and then the total is counted), offset and key refused together,
 * `next_key` the base64 store key of the first item left out (null at the end), `total` only
 * for offset pages with `count_total` (a key page ignores it), `reverse` walks the keys downwards.
 */
import { badRequest } from "./cosmos-errors.ts";
import { parseBool, parseBytes, parseUint64 } from "./go-parse.ts";

/** query.DefaultLimit. */
export const DEFAULT_LIMIT = 100;

/** The store key of the item at `index`: a prefix byte then the index big-endian, so keys sort like the list. */
function storeKey(index: number): Buffer {
  const key = Buffer.alloc(9);
  key[0] = 0x01;
  key.writeBigUInt64BE(BigInt(index), 1);
  return key;
}

/** One page of `items` and the `pagination` object a Cosmos SDK node returns beside it. */
export function paginate<T>(items: readonly T[], query: URLSearchParams) {
  const param = (name: string) => {
    const value = query.get(`pagination.${name}`);
    return value === null || value === "" ? null : value;
  };
  const read = <V>(name: string, parse: (raw: string) => V, fallback: V): V => {
    const raw = param(name);
    return raw === null ? fallback : parse(raw);
  };
  const key = read("key", parseBytes, new Uint8Array());
  const offset = read("offset", parseUint64, 0n);
  let limit = read("limit", parseUint64, 0n);
  let countTotal = read("count_total", parseBool, false);
  const reverse = read("reverse", parseBool, false);
  if (offset > 0n && key.length > 0) throw badRequest("invalid request, either offset or key is expected, got both");
  if (limit === 0n) {
    limit = BigInt(DEFAULT_LIMIT);
    countTotal = true;
  }

  const keys = items.map((_, i) => storeKey(i));
  const order = items.map((_, i) => i);
  if (reverse) order.reverse();
  const size = Number(limit);
  let start: number;
  if (key.length > 0) {
    // The iterator starts at the first key ≥ `key`; reversed it walks down from there, or from the last key when none is ≥ `key`.
    const first = keys.findIndex((k) => Buffer.compare(k, key) >= 0);
    start = reverse ? (first === -1 ? 0 : items.length - 1 - first) : first === -1 ? items.length : first;
  } else {
    start = offset > BigInt(items.length) ? items.length : Number(offset);
  }
  const page = order.slice(start, start + size).map((i) => items[i]!);
  const next = order[start + size];
  const total = key.length === 0 && countTotal ? String(items.length) : "0";
  return { page, pagination: { next_key: next === undefined ? null : keys[next]!.toString("base64"), total } };
}

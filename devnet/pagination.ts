/** Cosmos `PageRequest` query parameters applied to a list, answering with a `PageResponse`. */
import { badRequest } from "./cosmos-errors.ts";

/** One page of `items` and the `pagination` object a Cosmos SDK node returns beside it. */
export function paginate<T>(items: readonly T[], query: URLSearchParams) {
  const bool = (name: string) => ["true", "1", "t", "T", "TRUE", "True"].includes(query.get(name) ?? "");
  const uint = (name: string, fallback: number) => {
    const raw = query.get(name);
    if (raw === null || raw === "") return fallback;
    if (!/^\d{1,20}$/.test(raw)) throw badRequest(`strconv.ParseUint: parsing ${JSON.stringify(raw)}: invalid syntax`);
    return Number(raw);
  };
  const list = bool("pagination.reverse") ? [...items].reverse() : [...items];
  const limit = uint("pagination.limit", 100) || 100;
  const key = query.get("pagination.key");
  let start = uint("pagination.offset", 0);
  if (key) {
    // Keys this devnet hands out name the next index; any other key starts past the end, like an unknown store key.
    const match = /^i:(\d+)$/.exec(Buffer.from(key, "base64").toString("latin1"));
    start = match ? Number(match[1]) : list.length;
  }
  const page = list.slice(start, start + limit);
  const next = start + limit < list.length ? Buffer.from(`i:${start + limit}`, "latin1").toString("base64") : null;
  return { page, pagination: { next_key: next, total: bool("pagination.count_total") ? String(list.length) : "0" } };
}

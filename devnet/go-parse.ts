/**
 * Go's parsers as grpc-gateway applies them to query parameters (`runtime.Uint64` is
 * `strconv.ParseUint(v, 0, 64)`, `runtime.Bool` is `strconv.ParseBool`, `runtime.Bytes` tries
 * standard then URL-safe padded base64), with Go's error texts, which grpc-gateway returns as the
 * message of a code-3 answer.
 */
import { badRequest } from "./cosmos-errors.ts";

const UINT64_MAX = 0xffff_ffff_ffff_ffffn;

/** strconv.ParseUint(raw, 0, 64): decimal, `0x`/`0o`/`0b` prefixes, a leading `0` for octal, `_` between digits. */
export function parseUint64(raw: string): bigint {
  const refuse = (why: string) => badRequest(`strconv.ParseUint: parsing ${JSON.stringify(raw)}: ${why}`);
  const prefixed = /^0[xXoObB]/.test(raw);
  const base = prefixed
    ? { x: 16, o: 8, b: 2 }[raw[1]!.toLowerCase() as "x" | "o" | "b"]
    : raw.length > 1 && raw[0] === "0"
      ? 8
      : 10;
  const body = prefixed ? raw.slice(2) : raw;
  // Go accepts `_` only between digits (or right after a base prefix) when the base is implied.
  if (!(prefixed ? /^_?[0-9a-fA-F]+(?:_[0-9a-fA-F]+)*$/ : /^[0-9a-fA-F]+(?:_[0-9a-fA-F]+)*$/).test(body))
    throw refuse("invalid syntax");
  let value = 0n;
  for (const char of body.replaceAll("_", "")) {
    const digit = parseInt(char, 16);
    if (digit >= base) throw refuse("invalid syntax");
    value = value * BigInt(base) + BigInt(digit);
  }
  if (value > UINT64_MAX) throw refuse("value out of range");
  return value;
}

const TRUE = ["1", "t", "T", "TRUE", "true", "True"];
const FALSE = ["0", "f", "F", "FALSE", "false", "False"];

/** strconv.ParseBool(raw). */
export function parseBool(raw: string): boolean {
  if (TRUE.includes(raw)) return true;
  if (FALSE.includes(raw)) return false;
  throw badRequest(`strconv.ParseBool: parsing ${JSON.stringify(raw)}: invalid syntax`);
}

/** runtime.Bytes(raw): padded standard base64, else padded URL-safe base64 (Go skips CR and LF). */
export function parseBytes(raw: string): Uint8Array {
  const text = raw.replace(/[\r\n]/g, "");
  const padded = (alphabet: string) =>
    new RegExp(`^(?:[${alphabet}]{4})*(?:[${alphabet}]{2}==|[${alphabet}]{3}=)?$`).test(text);
  if (padded("A-Za-z0-9+/")) return new Uint8Array(Buffer.from(text, "base64"));
  if (padded("A-Za-z0-9_-")) return new Uint8Array(Buffer.from(text, "base64url"));
  // Go names the first byte it could not place: a stray character, or the start of a short last quantum.
  const stray = text.search(/[^A-Za-z0-9_=-]/);
  const at = stray >= 0 ? stray : text.includes("=") ? text.indexOf("=") : text.length - (text.length % 4);
  throw badRequest(`illegal base64 data at input byte ${at}`);
}

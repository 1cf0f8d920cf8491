/**
 * CometBFT's event query language, parsed as its `libs/pubsub/query/syntax` package does:
 *
 *     query      = condition {"AND" condition}
 *     condition  = tag ("=" | "<" | "<=" | ">" | ">=") value | tag "CONTAINS" 'string' | tag "EXISTS"
 *     value      = 'string' | number | DATE yyyy-mm-dd | TIME yyyy-mm-ddThh:mm:ss(Z|±hh:mm)
 *
 * A tag starts with a letter or `_` and goes on with letters, digits, `.`, `_` and `-`
 * (`message.sender`, `transfer.recipient`, `tx.hash`); a number is `\d+(\.\d+)?`; a string is
 * anything but `'` between single quotes. The order operators take numbers, dates and times only,
 * `CONTAINS` strings only, as CometBFT's compiler allows.
 */

/** An operator of a condition. */
type Operator = "=" | "<" | "<=" | ">" | ">=" | "CONTAINS" | "EXISTS";

/** A condition's argument, as written. */
export type Argument =
  | { kind: "string"; text: string }
  | { kind: "number"; text: string }
  | { kind: "date"; text: string; ms: number }
  | { kind: "time"; text: string; ms: number };

export interface Condition {
  tag: string;
  op: Operator;
  /** Absent for EXISTS only. */
  arg?: Argument;
}

/** A query the grammar refuses, with the reason in words. */
export class QuerySyntaxError extends Error {}

type Token = { kind: "tag" | "and" | "op" | "arg"; text: string; arg?: Argument; at: number };

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[-+]\d{2}:\d{2})$/;

/** Milliseconds of a DATE or TIME value, or null when it is not one (years 1900 to 2999, as CometBFT takes). */
export function instantOf(kind: "date" | "time", text: string): number | null {
  if (!(kind === "date" ? DATE : TIME).test(text)) return null;
  const ms = Date.parse(kind === "date" ? `${text}T00:00:00Z` : text);
  if (Number.isNaN(ms)) return null;
  // Date.parse rolls 2021-02-30 over; a calendar date must read back as written.
  if (kind === "date" && new Date(ms).toISOString().slice(0, 10) !== text) return null;
  const year = new Date(ms).getUTCFullYear();
  return year >= 1900 && year <= 2999 ? ms : null;
}

function scan(query: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const fail = (why: string): never => {
    throw new QuerySyntaxError(`${why} at offset ${i}`);
  };
  while (i < query.length) {
    const rest = query.slice(i);
    const space = /^\s+/.exec(rest);
    if (space) {
      i += space[0].length;
      continue;
    }
    const at = i;
    const number = /^\d+(?:\.\d+)?/.exec(rest);
    const word = /^[\p{L}\p{N}_][\p{L}\p{N}._-]*/u.exec(rest);
    const op = /^(?:<=|>=|<|>|=)/.exec(rest);
    if (number) {
      tokens.push({ kind: "arg", text: number[0], arg: { kind: "number", text: number[0] }, at });
      i += number[0].length;
    } else if (rest.startsWith("'")) {
      const end = query.indexOf("'", i + 1);
      if (end === -1) fail("unterminated string");
      const text = query.slice(i + 1, end);
      tokens.push({ kind: "arg", text, arg: { kind: "string", text }, at });
      i = end + 1;
    } else if (op) {
      tokens.push({ kind: "op", text: op[0], at });
      i += op[0].length;
    } else if (word) {
      i += word[0].length;
      const kind = word[0] === "DATE" ? "date" : word[0] === "TIME" ? "time" : null;
      if (kind && query[i] === " ") {
        const value = /^ [\dTZ:+-]*/.exec(query.slice(i))![0].slice(1);
        const ms = instantOf(kind, value);
        if (ms === null) fail(`invalid ${word[0]} value ${JSON.stringify(value)}`);
        tokens.push({ kind: "arg", text: value, arg: { kind, text: value, ms: ms! }, at });
        i += value.length + 1;
      } else if (word[0] === "AND") tokens.push({ kind: "and", text: "AND", at });
      else if (word[0] === "CONTAINS" || word[0] === "EXISTS") tokens.push({ kind: "op", text: word[0], at });
      else tokens.push({ kind: "tag", text: word[0], at });
    } else fail(`unexpected ${JSON.stringify(query[i])}`);
  }
  return tokens;
}

/** The conditions of `query`, in order; throws QuerySyntaxError with the reason. */
export function parseQuery(query: string): Condition[] {
  const tokens = scan(query);
  const conditions: Condition[] = [];
  let i = 0;
  const next = () => tokens[i++];
  const fail = (why: string, token?: Token): never => {
    throw new QuerySyntaxError(token ? `${why} at offset ${token.at}` : `${why} at the end of the query`);
  };
  if (tokens.length === 0) fail("a query holds at least one condition");
  while (i < tokens.length) {
    const tag = next()!;
    if (tag.kind !== "tag") fail(`expected a tag, found ${JSON.stringify(tag.text)}`, tag);
    const op = next();
    if (!op || op.kind !== "op") fail(`expected an operator after ${tag.text}`, op);
    const operator = op!.text as Operator;
    if (operator === "EXISTS") conditions.push({ tag: tag.text, op: operator });
    else {
      const value = next();
      if (!value || value.kind !== "arg") fail(`expected a value after ${operator}`, value);
      const arg = value!.arg!;
      if (operator === "CONTAINS" && arg.kind !== "string") fail("CONTAINS takes a string", value);
      if (operator !== "=" && operator !== "CONTAINS" && arg.kind === "string")
        fail(`${operator} takes a number, a DATE or a TIME`, value);
      conditions.push({ tag: tag.text, op: operator, arg });
    }
    if (i < tokens.length) {
      const and = next()!;
      if (and.kind !== "and") fail(`expected AND, found ${JSON.stringify(and.text)}`, and);
      if (i === tokens.length) fail("expected a condition after AND");
    }
  }
  return conditions;
}

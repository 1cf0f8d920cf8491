/**
 * Matching an event against a parsed query, as CometBFT's pubsub does: every condition must hold,
 * and a condition holds when ANY value of its key satisfies it. An event is its composite keys
 * (`<event type>.<attribute key>`) with their values, `tm.event` among them. A condition whose tag
 * is an event type itself (`transfer EXISTS`) is matched against the empty string. Numbers compare
 * exactly as decimals, and a value may carry a suffix after its number (`8stake` is 8), as
 * CometBFT reads amounts; a value that is not a number, date or time satisfies no order. A tag is
 * looked up as the event's own key only: `constructor`, `__proto__` or `toString` are names like any
 * other, never the object's inherited members.
 */
import { type Argument, type Condition, instantOf } from "./parse";

/** An event's keys: `tm.event`, `tx.hash`, `message.sender`, … each with its values. */
export type EventKeys = Readonly<Record<string, readonly string[]>>;

type Test = (value: string) => boolean;

/** The leading decimal of a value, as CometBFT's parseNumber reads it, or null. */
const LEADING_NUMBER = /^(\d+)(?:\.(\d+))?/;

/** Compares two non-negative decimals given as integer and fraction digits: -1, 0 or 1. */
function compareDecimal(a: [string, string], b: [string, string]): number {
  const [ai, bi] = [a[0].replace(/^0+/, ""), b[0].replace(/^0+/, "")];
  if (ai.length !== bi.length) return ai.length < bi.length ? -1 : 1;
  if (ai !== bi) return ai < bi ? -1 : 1;
  const width = Math.max(a[1].length, b[1].length);
  const [af, bf] = [a[1].padEnd(width, "0"), b[1].padEnd(width, "0")];
  return af === bf ? 0 : af < bf ? -1 : 1;
}

function decimal(text: string): [string, string] | null {
  const m = LEADING_NUMBER.exec(text);
  return m ? [m[1]!, m[2] ?? ""] : null;
}

const ORDER: Record<string, (c: number) => boolean> = {
  "=": (c) => c === 0,
  "<": (c) => c < 0,
  "<=": (c) => c <= 0,
  ">": (c) => c > 0,
  ">=": (c) => c >= 0,
};

function testOf(op: Condition["op"], arg: Argument | undefined): Test {
  if (op === "EXISTS" || !arg) return () => true;
  if (op === "CONTAINS") return (value) => value.includes(arg.text);
  if (arg.kind === "string") return (value) => value === arg.text;
  const holds = ORDER[op]!;
  if (arg.kind === "number") {
    const want = decimal(arg.text)!;
    return (value) => {
      const got = decimal(value);
      return got !== null && holds(compareDecimal(got, want));
    };
  }
  const kind = arg.kind;
  return (value) => {
    const got = instantOf(kind, value);
    return got !== null && holds(Math.sign(got - arg.ms));
  };
}

/** A compiled query: true when the event satisfies every condition. */
export function compileQuery(conditions: readonly Condition[]): (event: EventKeys) => boolean {
  const compiled = conditions.map((c) => ({ tag: c.tag, test: testOf(c.op, c.arg) }));
  return (event) => {
    const keys = Object.keys(event);
    if (keys.length === 0) return false;
    return compiled.every(({ tag, test }) => {
      if (Object.hasOwn(event, tag) && event[tag]!.some(test)) return true;
      // A tag that is an event's type (the key before its last dot) is matched against "".
      return keys.some((key) => key.slice(0, key.lastIndexOf(".")) === tag) && test("");
    });
  };
}

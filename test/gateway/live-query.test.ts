/**
 * The live face's query language against CometBFT's own documented examples (its
 * `libs/pubsub/query` tests: the OpenAPI example events, the compiled-match table, the big
 * numbers, the scanner's valid and invalid inputs), and properties: any value of a key may
 * satisfy its condition, numbers compare exactly, a written query parses back to its conditions,
 * and a subscription names exactly one served `tm.event`.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileQuery, type EventKeys } from "../../src/gateway/live/query/match";
import { parseQuery, QuerySyntaxError } from "../../src/gateway/live/query/parse";
import { subscriptionQuery } from "../../src/gateway/live/query/subscription-query";
import { RpcError } from "../../src/gateway/rpc/rpc-error";

const matches = (query: string, events: EventKeys) => compileQuery(parseQuery(query))(events);

/** CometBFT's test template: `type|key=value|key=value`, several events merged into one key map. */
function events(...templates: string[]): Record<string, string[]> {
  const keys: Record<string, string[]> = {};
  for (const template of templates) {
    const [type, ...pairs] = template.split("|");
    for (const pair of pairs) {
      const at = pair.indexOf("=");
      const key = `${type}.${pair.slice(0, at)}`;
      keys[key] = [...(keys[key] ?? []), pair.slice(at + 1)];
    }
  }
  return keys;
}

const API_EVENTS = {
  "tm.event": ["Tx"],
  "tm.hash": ["XYZ"],
  "tm.height": ["5"],
  "rewards.withdraw.address": ["AddrA", "AddrB"],
  "rewards.withdraw.source": ["SrcX", "SrcY"],
  "rewards.withdraw.amount": ["100", "45"],
  "rewards.withdraw.balance": ["1500", "999"],
  "transfer.sender": ["AddrC"],
  "transfer.recipient": ["AddrD"],
  "transfer.amount": ["160"],
};
const BIG = {
  "big.value": ["99999999999999999999"],
  "big2.value": ["18446744073709551615"],
  "big.floatvalue": ["99999999999999999999.10"],
  "big2.floatvalue": ["18446744073709551615.6"],
};
const today = new Date().toISOString().slice(0, 10);
const now = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
const SLASH = "slash|reason=missing_signature|power=6000";
const TRANSFER = "transfer|recipient=cosmos1gu6y2a0ffteesyeyeesk23082c6998xyzmt9mz|sender=cosmos1crje20aj4gxdtyct7z3";

/** [query, events, matches], as CometBFT's TestCompiledMatches and TestBigNumbers write them. */
const COMETBFT_EXAMPLES: [string, EventKeys, boolean][] = [
  ["tm.events.type='NewBlock'", events("tm|events.type=NewBlock"), true],
  ["tx.gas > 7", events("tx|gas=8"), true],
  ["transfer.amount > 7", events("transfer|amount=8stake"), true],
  ["transfer.amount > 7", events("transfer|amount=8.045"), true],
  ["transfer.amount > 7.043", events("transfer|amount=8.045stake"), true],
  ["transfer.amount > 8.045", events("transfer|amount=8.045stake"), false],
  ["tx.gas > 7 AND tx.gas < 9", events("tx|gas=8"), true],
  ["body.weight >= 3.5", events("body|weight=3.5"), true],
  ["account.balance < 1000.0", events("account|balance=900"), true],
  ["apples.kg <= 4", events("apples|kg=4.0"), true],
  ["body.weight >= 4.5", events("body|weight=4.5"), true],
  ["oranges.kg < 4 AND watermellons.kg > 10", events("oranges|kg=3", "watermellons|kg=12"), true],
  ["peaches.kg < 4", events("peaches|kg=5"), false],
  ["tx.date > DATE 2017-01-01", events(`tx|date=${today}`), true],
  ["tx.date = DATE 2017-01-01", events("tx|date=2017-01-01"), true],
  ["tx.date = DATE 2018-01-01", events("tx|date=2017-01-01"), false],
  ["tx.time >= TIME 2013-05-03T14:45:00Z", events(`tx|time=${now}`), true],
  ["tx.time = TIME 2013-05-03T14:45:00Z", events("tx|time=2018-05-03T14:45:00Z"), false],
  ["abci.owner.name CONTAINS 'Igor'", events("abci|owner.name=Igor|owner.name=Ivan"), true],
  ["abci.owner.name CONTAINS 'Igor'", events("abci|owner.name=Pavel|owner.name=Ivan"), false],
  ["abci.owner.name = 'Igor'", events("abci|owner.name=Igor|owner.name=Ivan"), true],
  ["abci.owner.name = 'Ivan'", events("abci|owner.name=Igor|owner.name=Ivan"), true],
  ["abci.owner.name = 'Ivan' AND abci.owner.name = 'Igor'", events("abci|owner.name=Igor|owner.name=Ivan"), true],
  ["abci.owner.name = 'Ivan' AND abci.owner.name = 'John'", events("abci|owner.name=Igor|owner.name=Ivan"), false],
  ["tm.events.type='NewBlock'", events("tm|events.type=NewBlock", "app|name=fuzzed"), true],
  ["app.name = 'fuzzed'", events("tm|events.type=NewBlock", "app|name=fuzzed"), true],
  ["tm.events.type='NewBlock' AND app.name = 'fuzzed'", events("tm|events.type=NewBlock", "app|name=fuzzed"), true],
  ["tm.events.type='NewHeader' AND app.name = 'fuzzed'", events("tm|events.type=NewBlock", "app|name=fuzzed"), false],
  ["slash EXISTS", events(SLASH), true],
  ["slash EXISTS", events(TRANSFER), false],
  ["slash.reason EXISTS AND slash.power > 1000", events(SLASH), true],
  ["slash.reason EXISTS AND slash.power > 1000", events("slash|reason=missing_signature|power=500"), false],
  ["slash.reason EXISTS", events(TRANSFER), false],
  ["tm.event = 'Tx' AND rewards.withdraw.address = 'AddrA'", API_EVENTS, true],
  ["tm.event = 'Tx' AND rewards.withdraw.address = 'AddrA' AND rewards.withdraw.source = 'SrcY'", API_EVENTS, true],
  ["tm.event = 'Tx' AND transfer.sender = 'AddrA'", API_EVENTS, false],
  ["tm.event = 'Tx' AND transfer.sender = 'AddrC'", API_EVENTS, true],
  ["tm.event = 'Tx' AND transfer.sender = 'AddrZ'", API_EVENTS, false],
  ["tm.event = 'Tx' AND rewards.withdraw.address = 'AddrZ'", API_EVENTS, false],
  ["tm.event = 'Tx' AND rewards.withdraw.source = 'W'", API_EVENTS, false],
  ["big.value >= 99999999999999999999", BIG, true],
  ["big.value > 99999999999999999998", BIG, true],
  ["big2.value <= 18446744073709551615", BIG, true],
  ["big.floatvalue >= 99999999999999999999", BIG, true],
  ["big.floatvalue > 99999999999999999998.10", BIG, true],
  ["big2.floatvalue <= 18446744073709551615.6", BIG, true],
  ["big2.floatvalue >= 18446744073709551615", BIG, true],
  ["big2.floatvalue >= 12.5", BIG, true],
  ["big.value >= 10", BIG, true],
];

/** Inputs CometBFT's scanner refuses, and queries its parser refuses. */
const REFUSED = [
  "'incomplete string",
  "-23",
  "&",
  "DATE xyz-pdq",
  "DATE 0000-00-00",
  "DATE 2021-01-99",
  "TIME 2021-01-01T34:56:78Z",
  "TIME 2021-01-99T14:56:08Z",
  "TIME 2021-01-99T34:56:11+3",
  "",
  "tm.event",
  "tm.event =",
  "tm.event = 'Tx' AND",
  "tm.event = 'Tx' tx.height = 5",
  "tx.height > 'five'",
  "tx.memo CONTAINS 5",
  "= 'Tx'",
];

describe("CometBFT's documented examples", () => {
  it.each(COMETBFT_EXAMPLES)("%s", (query, keys, expected) => {
    expect(matches(query, keys)).toBe(expected);
  });

  it.each(REFUSED)("refuses %j", (query) => {
    expect(() => parseQuery(query)).toThrow(QuerySyntaxError);
  });

  it("reads the scanner's valid forms: dates, times, dashed and underscored tags, spaces in strings", () => {
    expect(parseQuery("a.b-c._d = 'you are not your job' AND t < TIME 2021-11-23T15:16:17Z")).toEqual([
      { tag: "a.b-c._d", op: "=", arg: { kind: "string", text: "you are not your job" } },
      {
        tag: "t",
        op: "<",
        arg: { kind: "time", text: "2021-11-23T15:16:17Z", ms: Date.UTC(2021, 10, 23, 15, 16, 17) },
      },
    ]);
    expect(parseQuery("d >= DATE 2021-11-23 AND n <= 0.32 AND and EXISTS")).toHaveLength(3);
  });
});

const tagName = fc.stringMatching(/^[a-z_][a-z0-9_]{0,6}(\.[a-z_][a-z0-9_-]{0,6}){1,2}$/);
const plain = fc.stringMatching(/^[^']{0,12}$/);

describe("properties", () => {
  it("a condition holds when any value of its key satisfies it", () => {
    fc.assert(
      fc.property(tagName, fc.array(plain, { maxLength: 5 }), plain, (tag, values, wanted) => {
        const keys = { "tm.event": ["Tx"], [tag]: values };
        expect(matches(`${tag} = '${wanted}'`, keys)).toBe(values.includes(wanted));
        expect(matches(`${tag} CONTAINS '${wanted}'`, keys)).toBe(values.some((v) => v.includes(wanted)));
        expect(matches(`${tag} EXISTS`, keys)).toBe(values.length > 0);
      }),
    );
  });

  it("numbers compare exactly, however long, with a unit after the value", () => {
    const big = fc.bigInt({ min: 0n, max: 10n ** 30n });
    fc.assert(
      fc.property(big, big, fc.constantFrom("", "uhope", "stake"), (value, bound, unit) => {
        const keys = { "amount.value": [`${value}${unit}`] };
        expect(matches(`amount.value > ${bound}`, keys)).toBe(value > bound);
        expect(matches(`amount.value <= ${bound}`, keys)).toBe(value <= bound);
        expect(matches(`amount.value = ${bound}.0`, keys)).toBe(value === bound);
      }),
    );
  });

  it("a written query parses back to its conditions", () => {
    const condition = fc.oneof(
      fc.record({ tag: tagName, op: fc.constant("=" as const), text: plain }),
      fc.record({ tag: tagName, op: fc.constantFrom("<", "<=", ">", ">=", "=" as const), n: fc.nat() }),
      fc.record({ tag: tagName, op: fc.constant("EXISTS" as const) }),
    );
    fc.assert(
      fc.property(fc.array(condition, { minLength: 1, maxLength: 16 }), (conditions) => {
        const written = conditions.map((c) =>
          "text" in c ? `${c.tag} = '${c.text}'` : "n" in c ? `${c.tag} ${c.op} ${c.n}` : `${c.tag} EXISTS`,
        );
        const parsed = parseQuery(written.join(" AND "));
        expect(parsed.map((c) => [c.tag, c.op, c.arg?.text])).toEqual(
          conditions.map((c) => [c.tag, c.op, "text" in c ? c.text : "n" in c ? String(c.n) : undefined]),
        );
      }),
    );
  });

  it("a subscription names exactly one served tm.event, else -32602 says why", () => {
    const type = fc.constantFrom("NewBlock", "NewBlockHeader", "NewBlockEvents", "Tx", "Vote", "NewRound", "Lock");
    fc.assert(
      fc.property(fc.array(type, { maxLength: 3 }), fc.array(tagName, { maxLength: 3 }), (types, tags) => {
        const query = [...types.map((t) => `tm.event = '${t}'`), ...tags.map((t) => `${t} EXISTS`)].join(" AND ");
        const served = types.length === 1 && ["NewBlock", "NewBlockHeader", "NewBlockEvents", "Tx"].includes(types[0]!);
        if (served) expect(subscriptionQuery(query).type).toBe(types[0]);
        else expect(() => subscriptionQuery(query)).toThrow(RpcError);
      }),
    );
  });
});

/** The `data` of the refusal `query` meets. */
function refusal(query: string): string {
  try {
    subscriptionQuery(query);
  } catch (err) {
    if (err instanceof RpcError && err.code === -32602) return err.data;
    throw err;
  }
  throw new Error(`${query} was taken`);
}

describe("a subscription's limits", () => {
  it("refuses over 512 characters and over 16 conditions, with the reason", () => {
    const long = `tm.event = 'Tx' AND memo.text = '${"x".repeat(480)}'`;
    expect(refusal(long)).toMatch(/at most 512 characters/);
    const many = ["tm.event = 'Tx'", ...Array.from({ length: 16 }, (_, i) => `k.v${i} EXISTS`)].join(" AND ");
    expect(refusal(many)).toMatch(/at most 16 conditions/);
    expect(subscriptionQuery(many.slice(0, many.lastIndexOf(" AND "))).type).toBe("Tx");
    expect(refusal("tm.event = 'Vote'")).toMatch(/not served here/);
    expect(refusal("tx.height > 5")).toMatch(/exactly one tm.event/);
    expect(refusal("tm.event = 'Tx' AND")).toMatch(/failed to parse query/);
  });
});

describe("a tag named like an Object member", () => {
  it.each(["constructor", "__proto__", "toString", "hasOwnProperty"])("%s is an event's own key or nothing", (tag) => {
    const block = { "tm.event": ["NewBlock"], "transfer.amount": ["5"] };
    expect(matches(`tm.event='NewBlock' AND ${tag} EXISTS`, block)).toBe(false);
    expect(matches(`tm.event='NewBlock' AND ${tag} = 'x'`, block)).toBe(false);
    const own = Object.assign(Object.create(null) as Record<string, string[]>, block, { [tag]: ["x"] });
    expect(matches(`tm.event='NewBlock' AND ${tag} = 'x'`, own)).toBe(true);
  });
});

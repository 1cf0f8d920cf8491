/**
 * Property tests over the message and command builders: a valid input builds; the same input with
 * exactly one field made bad is refused with that field's own reason and that field's name (never
 * just "some refusal"); and a printed command always splits back, in a POSIX shell's quoting,
 * into exactly the words it was built from.
 */
import { toBech32 } from "@cosmjs/encoding";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildUpdateNodeCommand } from "../../../src/protocol/index";
import { commandLine, shellWord } from "../../../src/protocol/index";
import { buildSweep } from "../../../src/protocol/index";
import { buildDelegate, buildUndelegate } from "../../../src/protocol/index";
import { buildSend } from "../../../src/protocol/index";
import { buildAuthorizeOperator, buildRevokeOperatorAuthorization, buildUpdateNode } from "../../../src/protocol/index";
import { refusal, workerContext } from "./helpers";

const ctx = workerContext();
const BACKENDS = ["os", "file", "kwallet", "pass", "test", "memory"];
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const MAX_AMOUNT = 2n ** 256n - 1n;

// Valid values, each from an oracle written here rather than from the code under test.
const accountOf = (prefix: string) => fc.uint8Array({ minLength: 20, maxLength: 20 }).map((d) => toBech32(prefix, d));
const address = accountOf(ctx.bech32Prefix);
const validator = accountOf(`${ctx.bech32Prefix}valoper`);
const amount = fc.bigInt({ min: 1n, max: MAX_AMOUNT }).map(String);
const label = fc.string({ maxLength: 64 }).filter((s) => !CONTROL.test(s));
const keyName = fc
  .string({ unit: "binary", minLength: 1, maxLength: 64 })
  .filter((s) => !CONTROL.test(s) && s.length <= 64);
const container = fc.oneof(fc.constant(""), fc.stringMatching(/^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,40}$/));
const home = fc
  .string({ unit: "binary", maxLength: 200 })
  .map((s) => `/${s}`)
  .filter((s) => !CONTROL.test(s) && s.length <= 1024);
const keyringBackend = fc.constantFrom(...BACKENDS);

// Bad values of each kind.
const notString = fc.oneof(fc.integer(), fc.constant(null), fc.constant(undefined), fc.boolean(), fc.object());
const isValidAmount = (s: string) => /^[1-9][0-9]*$/.test(s) && BigInt(s) <= MAX_AMOUNT;
const badAddressFor = (prefix: string) =>
  fc.oneof(
    notString,
    fc.string().filter((s) => !s.startsWith(`${prefix}1`)),
    accountOf(prefix === ctx.bech32Prefix ? "other" : ctx.bech32Prefix),
    fc.uint8Array({ minLength: 21, maxLength: 40 }).map((d) => toBech32(prefix, d)),
    accountOf(prefix).map((a) => a.toUpperCase()),
    accountOf(prefix).map((a) => `${a.slice(0, -1)}${a.endsWith("q") ? "p" : "q"}`),
  );
const badAmount = fc.oneof(
  notString,
  fc.string().filter((s) => !isValidAmount(s)),
  fc.constantFrom("0", "-1", "01", "1.5", "1e6", " 1", (MAX_AMOUNT + 1n).toString()),
);
const badLabel = fc.oneof(
  fc.integer(),
  fc.string({ minLength: 65, maxLength: 90 }),
  fc
    .tuple(fc.string({ maxLength: 10 }), fc.integer({ min: 0, max: 31 }))
    .map(([s, c]) => `${s}${String.fromCharCode(c)}`),
);
const badKeyName = fc.oneof(
  notString,
  fc.constant(""),
  fc.string({ minLength: 65, maxLength: 80 }),
  fc.integer({ min: 0, max: 31 }).map((c) => `key${String.fromCharCode(c)}`),
);
const badContainer = fc.oneof(
  fc.integer(),
  fc.string({ minLength: 1 }).filter((s) => !/^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,127}$/.test(s)),
);
const badHome = fc.oneof(
  notString,
  fc.string().filter((s) => !s.startsWith("/")),
  fc.integer({ min: 0, max: 31 }).map((c) => `/home${String.fromCharCode(c)}x`),
  fc.constant(`/${"x".repeat(1024)}`),
);
const badKeyringBackend = fc.oneof(
  notString,
  fc.string().filter((s) => !BACKENDS.includes(s)),
);

/** For each input field: how to make it bad, and the refusal that must name it. */
const BAD: Record<string, { value: fc.Arbitrary<unknown>; reason: string }> = {
  payoutRecipient: { value: badAddressFor(ctx.bech32Prefix), reason: "INVALID_MESSAGE" },
  operator: { value: badAddressFor(ctx.bech32Prefix), reason: "INVALID_MESSAGE" },
  fromAddress: { value: badAddressFor(ctx.bech32Prefix), reason: "INVALID_MESSAGE" },
  toAddress: { value: badAddressFor(ctx.bech32Prefix), reason: "INVALID_MESSAGE" },
  delegatorAddress: { value: badAddressFor(ctx.bech32Prefix), reason: "INVALID_MESSAGE" },
  validatorAddress: { value: badAddressFor(`${ctx.bech32Prefix}valoper`), reason: "INVALID_MESSAGE" },
  amount: { value: badAmount, reason: "INVALID_MESSAGE" },
  label: { value: badLabel, reason: "INVALID_MESSAGE" },
  keyName: { value: badKeyName, reason: "INVALID_KEY_NAME" },
  container: { value: badContainer, reason: "INVALID_CONTAINER_NAME" },
  home: { value: badHome, reason: "INVALID_HOME" },
  keyringBackend: { value: badKeyringBackend, reason: "INVALID_KEYRING_BACKEND" },
  balance: { value: badAmount, reason: "INVALID_BALANCE" },
  reserve: { value: badAmount, reason: "INVALID_RESERVE" },
};

const distinctPair = fc.tuple(address, address).filter(([a, b]) => a !== b);
const nodeTarget = fc.record({ keyName, home, keyringBackend, container });
const sweepAmounts = fc
  .tuple(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.bigInt({ min: 1n, max: 10n ** 30n }))
  .map(([reserve, more]) => ({ reserve: String(reserve || 1n), balance: String((reserve || 1n) + more) }));

interface BuilderCase {
  name: string;
  build: (value: any) => unknown;
  valid: fc.Arbitrary<Record<string, unknown>>;
}

const BUILDERS: BuilderCase[] = [
  {
    name: "MsgAuthorizeOperator",
    build: (v) => buildAuthorizeOperator(ctx, v),
    valid: fc
      .tuple(distinctPair, label)
      .map(([[payoutRecipient, operator], l]) => ({ payoutRecipient, operator, label: l })),
  },
  {
    name: "MsgRevokeOperatorAuthorization",
    build: (v) => buildRevokeOperatorAuthorization(ctx, v),
    valid: distinctPair.map(([payoutRecipient, operator]) => ({ payoutRecipient, operator })),
  },
  {
    name: "MsgUpdateNode",
    build: (v) => buildUpdateNode(ctx, v),
    valid: fc.record({ operator: address, payoutRecipient: address }),
  },
  {
    name: "MsgSend",
    build: (v) => buildSend(ctx, v),
    valid: fc
      .tuple(distinctPair, amount)
      .map(([[fromAddress, toAddress], a]) => ({ fromAddress, toAddress, amount: a })),
  },
  {
    name: "MsgDelegate",
    build: (v) => buildDelegate(ctx, v),
    valid: fc.record({ delegatorAddress: address, validatorAddress: validator, amount }),
  },
  {
    name: "MsgUndelegate",
    build: (v) => buildUndelegate(ctx, v),
    valid: fc.record({ delegatorAddress: address, validatorAddress: validator, amount }),
  },
  {
    name: "update-node command",
    build: (v) => buildUpdateNodeCommand(ctx, v),
    valid: fc
      .tuple(fc.record({ operator: address, payoutRecipient: address }), nodeTarget)
      .map(([pair, target]) => ({ ...pair, ...target })),
  },
  {
    name: "sweep",
    build: (v) => buildSweep(ctx, v),
    valid: fc
      .tuple(distinctPair, sweepAmounts, nodeTarget)
      .map(([[operator, payoutRecipient], amounts, target]) => ({ operator, payoutRecipient, ...amounts, ...target })),
  },
];

describe("builders under generated input", () => {
  for (const { name, build, valid } of BUILDERS) {
    it(`${name}: a valid input builds`, () => {
      fc.assert(
        fc.property(valid, (value) => void expect(() => build(value)).not.toThrow()),
        { numRuns: 200 },
      );
    });

    it(`${name}: one bad field is refused with that field's reason and name`, () => {
      const oneBadField = valid.chain((value) =>
        fc
          .constantFrom(...Object.keys(value))
          .chain((field) => BAD[field]!.value.map((bad) => ({ value: { ...value, [field]: bad }, field }))),
      );
      fc.assert(
        fc.property(oneBadField, ({ value, field }) => {
          const error = refusal(() => build(value));
          expect({ reason: error.reason, field: error.field }).toEqual({ reason: BAD[field]!.reason, field });
        }),
        { numRuns: 600 },
      );
    });
  }

  it("message builders refuse an unknown field by name", () => {
    for (const { name, build, valid } of BUILDERS.filter((b) => b.name.startsWith("Msg"))) {
      fc.assert(
        fc.property(valid, fc.constantFrom("extra", "memo", "signer"), (value, extra) => {
          const error = refusal(() => build({ ...value, [extra]: "x" }));
          expect([name, error.reason, error.message]).toEqual([name, "INVALID_MESSAGE", `Unknown field "${extra}"`]);
        }),
        { numRuns: 20 },
      );
    }
  });

  it("refuses the relations between valid fields with their own reasons", () => {
    fc.assert(
      fc.property(address, label, amount, nodeTarget, (a, l, n, target) => {
        const self = refusal(() => buildAuthorizeOperator(ctx, { payoutRecipient: a, operator: a, label: l }));
        expect([self.reason, self.field]).toEqual(["ErrSelfAuthorization", "operator"]);
        const revoke = refusal(() => buildRevokeOperatorAuthorization(ctx, { payoutRecipient: a, operator: a }));
        expect([revoke.reason, revoke.field]).toEqual(["ErrSelfAuthorization", "operator"]);
        const send = refusal(() => buildSend(ctx, { fromAddress: a, toAddress: a, amount: n }));
        expect([send.reason, send.field]).toEqual(["SEND_TO_SELF", "toAddress"]);
        const sweepSelf = refusal(() =>
          buildSweep(ctx, { operator: a, payoutRecipient: a, balance: "2", reserve: "1", ...target }),
        );
        expect([sweepSelf.reason, sweepSelf.field]).toEqual(["SEND_TO_SELF", "payoutRecipient"]);
      }),
      { numRuns: 100 },
    );
  });

  it("refuses a sweep that would leave nothing above the reserve", () => {
    fc.assert(
      fc.property(
        distinctPair,
        fc.bigInt({ min: 1n, max: 10n ** 30n }),
        fc.bigInt({ min: 0n, max: 10n ** 30n }),
        nodeTarget,
        ([operator, payoutRecipient], balance, extra, target) => {
          const error = refusal(() =>
            buildSweep(ctx, {
              operator,
              payoutRecipient,
              balance: String(balance),
              reserve: String(balance + extra),
              ...target,
            }),
          );
          expect([error.reason, error.field]).toEqual(["NOTHING_TO_SWEEP", "balance"]);
        },
      ),
    );
  });

  it("MsgAuthorizeOperator keeps exactly the addresses and label it was given", () => {
    fc.assert(
      fc.property(distinctPair, label, ([payoutRecipient, operator], l) => {
        expect(buildAuthorizeOperator(ctx, { payoutRecipient, operator, label: l }).value).toEqual({
          payoutRecipient,
          operator,
          label: l,
        });
      }),
    );
  });
});

/** Splits a command line the way a POSIX shell would for the quoting `shellWord` uses. */
function shellSplit(line: string): string[] {
  const words: string[] = [];
  let current = "";
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === " ") {
      if (inWord) words.push(current);
      current = "";
      inWord = false;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end === -1) throw new Error(`unterminated quote in ${line}`);
      current += line.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (c === '"' && line[i + 1] === '"') {
      i++;
      inWord = true;
    } else if (c === "\\" && line[i + 1] === "'") {
      current += "'";
      i++;
      inWord = true;
    } else {
      if (!/[A-Za-z0-9_@%+=:,./-]/.test(c))
        throw new Error(`unquoted special character ${JSON.stringify(c)} in ${line}`);
      current += c;
      inWord = true;
    }
  }
  if (inWord) words.push(current);
  return words;
}

describe("shell safety", () => {
  it("quotes any string into one word that reads back unchanged", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 40 }), (value) => {
        expect(shellSplit(shellWord(value))).toEqual([value]);
      }),
      { numRuns: 2000 },
    );
  });

  it("joins any words into a line that splits back into exactly those words", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 12 }), { minLength: 1, maxLength: 6 }),
        (words) => void expect(shellSplit(commandLine(words))).toEqual(words),
      ),
    );
  });

  it("prints an update-node command whose words are exactly the intended ones, whatever the key name and home", () => {
    fc.assert(
      fc.property(address, address, nodeTarget, (operator, payoutRecipient, target) => {
        const line = buildUpdateNodeCommand(ctx, { operator, payoutRecipient, ...target });
        expect(shellSplit(line)).toEqual([
          ...(target.container ? ["docker", "exec", target.container] : []),
          ctx.nodeBinary,
          "tx",
          "incentives",
          "update-node",
          "",
          "--payout-recipient",
          payoutRecipient,
          "--from",
          target.keyName,
          "--home",
          target.home,
          "--keyring-backend",
          target.keyringBackend,
          "--chain-id",
          ctx.chainId,
          "--sign-mode",
          "pq-direct",
          "-y",
        ]);
      }),
      { numRuns: 1000 },
    );
  });

  it("prints a sweep whose words are exactly the intended ones", () => {
    fc.assert(
      fc.property(distinctPair, sweepAmounts, nodeTarget, ([operator, payoutRecipient], amounts, target) => {
        const sweep = buildSweep(ctx, { operator, payoutRecipient, ...amounts, ...target });
        expect(shellSplit(sweep.command)).toEqual([
          ...(target.container ? ["docker", "exec", target.container] : []),
          ctx.nodeBinary,
          "tx",
          "bank",
          "send",
          target.keyName,
          payoutRecipient,
          `${BigInt(amounts.balance) - BigInt(amounts.reserve)}${ctx.nativeDenom}`,
          "--home",
          target.home,
          "--keyring-backend",
          target.keyringBackend,
          "--chain-id",
          ctx.chainId,
          "--sign-mode",
          "pq-direct",
          "-y",
        ]);
      }),
      { numRuns: 500 },
    );
  });
});

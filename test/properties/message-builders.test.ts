/**
 * Property tests over the message and command builders: any input gives a message or a
 * MessageError (never another exception), and a printed command always splits back, in a POSIX
 * shell's quoting, into exactly the words it was built from.
 */
import { toBech32 } from "@cosmjs/encoding";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildUpdateNodeCommand } from "../../src/protocol/index";
import { commandLine, shellWord } from "../../src/protocol/index";
import { buildSweep } from "../../src/protocol/index";
import { buildDelegate, buildUndelegate } from "../../src/protocol/index";
import { buildSend } from "../../src/protocol/index";
import { MessageError } from "../../src/protocol/index";
import { buildAuthorizeOperator, buildRevokeOperatorAuthorization, buildUpdateNode } from "../../src/protocol/index";
import { workerContext } from "../messages/helpers";

const ctx = workerContext();
const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((d) => toBech32(ctx.bech32Prefix, d));
const anyValue = fc.oneof(address, fc.string(), fc.jsonValue(), fc.constant(undefined));
const input = fc.dictionary(
  fc.constantFrom("payoutRecipient", "operator", "label", "fromAddress", "toAddress", "amount", "delegatorAddress", "validatorAddress", "keyName", "container", "balance", "feeReserve", "__proto__", "extra"),
  anyValue,
  { maxKeys: 6 },
);

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
      if (!/[A-Za-z0-9_@%+=:,./-]/.test(c)) throw new Error(`unquoted special character ${JSON.stringify(c)} in ${line}`);
      current += c;
      inWord = true;
    }
  }
  if (inWord) words.push(current);
  return words;
}

function refusedOrBuilt(build: () => unknown): void {
  try {
    const message = build() as { typeUrl?: string } | string;
    if (typeof message === "object" && message !== null && "typeUrl" in message) expect(message.typeUrl).toMatch(/^\/[\w.]+\.Msg\w+$/);
  } catch (err) {
    if (!(err instanceof MessageError)) throw err;
    expect(err.reason).toMatch(/\w/);
  }
}

describe("builders under arbitrary input", () => {
  const builders: [string, (value: any) => unknown][] = [
    ["MsgAuthorizeOperator", (v) => buildAuthorizeOperator(ctx, v)],
    ["MsgRevokeOperatorAuthorization", (v) => buildRevokeOperatorAuthorization(ctx, v)],
    ["MsgUpdateNode", (v) => buildUpdateNode(ctx, v)],
    ["MsgSend", (v) => buildSend(ctx, v)],
    ["MsgDelegate", (v) => buildDelegate(ctx, v)],
    ["MsgUndelegate", (v) => buildUndelegate(ctx, v)],
    ["update-node command", (v) => buildUpdateNodeCommand(ctx, v)],
    ["sweep", (v) => buildSweep(ctx, v)],
  ];
  for (const [name, build] of builders) {
    it(`${name}: a message or a MessageError, never another exception`, () => {
      fc.assert(fc.property(input, (value) => refusedOrBuilt(() => build(value))), { numRuns: 300 });
    });
  }

  it("MsgAuthorizeOperator keeps exactly the addresses and label it was given", () => {
    fc.assert(
      fc.property(address, address, fc.string({ maxLength: 64 }), (payoutRecipient, operator, label) => {
        fc.pre(payoutRecipient !== operator);
        try {
          expect(buildAuthorizeOperator(ctx, { payoutRecipient, operator, label }).value).toEqual({ payoutRecipient, operator, label });
        } catch (err) {
          // Labels with control characters or over the limit are refused, never altered.
          expect(err).toBeInstanceOf(MessageError);
        }
      }),
    );
  });
});

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
    fc.assert(fc.property(fc.array(fc.string({ maxLength: 12 }), { minLength: 1, maxLength: 6 }), (words) => void expect(shellSplit(commandLine(words))).toEqual(words)));
  });

  it("prints an update-node command whose words are exactly the intended ones, whatever the key name", () => {
    fc.assert(
      fc.property(address, address, fc.string({ unit: "binary", minLength: 1, maxLength: 64 }), (operator, payoutRecipient, keyName) => {
        let line: string;
        try {
          line = buildUpdateNodeCommand(ctx, { operator, payoutRecipient, keyName });
        } catch (err) {
          expect(err).toBeInstanceOf(MessageError);
          return;
        }
        expect(shellSplit(line)).toEqual([
          ctx.nodeBinary, "tx", "incentives", "update-node", "", "--payout-recipient", payoutRecipient,
          "--from", keyName, "--chain-id", ctx.chainId, "--sign-mode", "pq-direct", "-y",
        ]);
      }),
      { numRuns: 1000 },
    );
  });
});

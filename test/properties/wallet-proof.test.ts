/** Property tests: whatever a client sends, the proof parser answers a value or a 4xx, never a crash. */
import { toBech32 } from "@cosmjs/encoding";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { accountAddressProblem } from "../../src/protocol/index";
import { ApiError } from "../../src/errors";
import { canonicalBase64Length, parseWalletProof } from "../../src/sessions/schemas";
import { mintSessionId, proofFor } from "../helpers/sessions";

const rules = { pathSessionId: mintSessionId(), bech32Prefix: "chain", keyLengths: new Set([1952]) };
const bytes20 = fc.uint8Array({ minLength: 20, maxLength: 20 });

/** Runs `parse` and says how it ended: parsed, refused with a 4xx ApiError, or crashed. */
function outcome(parse: () => unknown): "parsed" | "refused" {
  try {
    parse();
    return "parsed";
  } catch (err) {
    if (err instanceof ApiError && err.status >= 400 && err.status < 500 && err.message.length > 0) return "refused";
    throw err;
  }
}

describe("parseWalletProof", () => {
  it("answers any JSON value with a proof or a 4xx, never an exception", () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => void outcome(() => parseWalletProof(value, rules))), { numRuns: 500 });
  });

  it("answers any object with the proof's keys and arbitrary values with a proof or a 4xx", () => {
    const keys = ["session_id", "sessionId", "address", "pubkey_base64", "pubkeyBase64", "account_label", "accountLabel", "__proto__", "constructor"];
    const body = fc.dictionary(fc.constantFrom(...keys), fc.oneof(fc.string(), fc.jsonValue()), { maxKeys: 7 });
    fc.assert(fc.property(body, (value) => void outcome(() => parseWalletProof(value, rules))), { numRuns: 500 });
  });

  it("refuses every proof whose valid address has one character changed", () => {
    const base = proofFor(rules.pathSessionId);
    fc.assert(
      fc.property(bytes20, fc.nat(), fc.constantFrom(..."qpzry9x8gf2tvdw0s3jn54khce6mua7l"), (data, at, replacement) => {
        const address = toBech32("chain", data);
        const index = 6 + (at % (address.length - 6));
        fc.pre(address[index] !== replacement);
        const mutated = address.slice(0, index) + replacement + address.slice(index + 1);
        expect(outcome(() => parseWalletProof({ ...base, address: mutated }, rules))).toBe("refused");
      }),
      { numRuns: 300 },
    );
  });

  it("accepts every well-formed proof", () => {
    fc.assert(
      fc.property(bytes20, fc.uint8Array({ minLength: 1952, maxLength: 1952 }), (data, key) => {
        const proof = { session_id: rules.pathSessionId, address: toBech32("chain", data), pubkey_base64: btoa(String.fromCharCode(...key)) };
        expect(parseWalletProof(proof, rules)).toMatchObject({ address: proof.address, account_label: null });
      }),
      { numRuns: 100 },
    );
  });
});

describe("address and base64 checks", () => {
  it("never throw, whatever the string", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (value) => {
        expect(typeof (accountAddressProblem(value, "chain") ?? "")).toBe("string");
        const length = canonicalBase64Length(value);
        expect(length === null || Number.isInteger(length)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it("reads back the length of any canonical base64", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (data) => {
        const encoded = btoa(String.fromCharCode(...data));
        expect(canonicalBase64Length(encoded)).toBe(data.length === 0 ? null : data.length);
      }),
    );
  });
});

/**
 * Property tests of `normalizeWalletProof`: every body an honest wallet SDK client may send is
 * accepted and normalized to one form; anything else is answered with a problem, never a throw.
 */
import { toBech32 } from "@cosmjs/encoding";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { normalizeWalletProof, PUBKEY_MAX_BYTES, PUBKEY_MIN_BYTES, type ProofResult } from "../../src/protocol/index";
import { mintSessionId, PREFIX } from "../helpers/sessions";

const expected = { sessionId: mintSessionId(), bech32Prefix: PREFIX };
const bytes20 = fc.uint8Array({ minLength: 20, maxLength: 20 });
const keyBytes = fc.uint8Array({ minLength: PUBKEY_MIN_BYTES, maxLength: PUBKEY_MAX_BYTES });
const PROOF_KEYS = [
  "session_id",
  "sessionId",
  "address",
  "pubkey_base64",
  "pubkeyBase64",
  "account_label",
  "accountLabel",
];

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The result, after checking that a refusal names a field and says why. */
function checked(result: ProofResult): ProofResult {
  if (!result.ok) {
    expect(result.problem.field.length).toBeGreaterThan(0);
    expect(result.problem.message.length).toBeGreaterThan(0);
  }
  return result;
}

/** An own, non-empty string field: what counts as present, as the SDK reads it. */
const present = (body: object, name: string) => {
  const value = Object.hasOwn(body, name) ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === "string" && value !== "" ? value : undefined;
};

/**
 * The refusal of a body whose session id is not this session's (any arbitrary body): a body that
 * is not an object is refused as a whole; an object is refused on `session_id`, as missing, as
 * two spellings that differ, or as another session's id.
 */
function refusalOfArbitrary(body: unknown): { field: string; reason: string } {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    return { field: "body", reason: "INVALID_PROOF" };
  const snake = present(body, "session_id");
  const camel = present(body, "sessionId");
  if (snake === undefined && camel === undefined) return { field: "session_id", reason: "INVALID_PROOF" };
  if (snake !== undefined && camel !== undefined && snake !== camel)
    return { field: "session_id", reason: "INVALID_PROOF" };
  return { field: "session_id", reason: "SESSION_ID_MISMATCH" };
}

/** A field in one spelling, the other, or both with the same value. */
const spelling = fc.constantFrom("snake", "camel", "both");
function spell(snake: string, camel: string, value: unknown, how: string): Record<string, unknown> {
  if (how === "snake") return { [snake]: value };
  if (how === "camel") return { [camel]: value };
  return { [snake]: value, [camel]: value };
}

const keyEncoding = fc.constantFrom("standard", "standard-unpadded", "url", "url-unpadded");
function encodeKey(bytes: Uint8Array, how: string): string {
  let text = base64(bytes);
  if (how.startsWith("url")) text = text.replaceAll("+", "-").replaceAll("/", "_");
  if (how.endsWith("unpadded")) text = text.replace(/=+$/, "");
  return text;
}

/** Labels the SDK passes on: absent, empty or not a string (both count as none), or a short name. */
const label = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom("", null, 7, false, ["x"]),
  fc
    .string({ unit: "grapheme", minLength: 1, maxLength: 64 })
    .filter((s) => !/[\u0000-\u001f\u007f]/.test(s) && [...s].length <= 64),
);
const padding = fc.constantFrom("", " ", "\t", "\n ", "\u00a0");
const extraFields = fc.dictionary(
  fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !PROOF_KEYS.includes(k)),
  fc.jsonValue(),
  { maxKeys: 4 },
);

describe("normalizeWalletProof accepts what an honest SDK client sends", () => {
  it("in any spelling, address case, key encoding and key size, with extra fields ignored", () => {
    fc.assert(
      fc.property(
        fc.record({
          data: bytes20,
          key: keyBytes,
          label,
          extra: extraFields,
          idSpelling: spelling,
          keySpelling: spelling,
          labelSpelling: spelling,
          encoding: keyEncoding,
          upper: fc.boolean(),
          before: padding,
          after: padding,
        }),
        (v) => {
          const address = toBech32(PREFIX, v.data);
          const body = {
            ...v.extra,
            ...spell("session_id", "sessionId", expected.sessionId, v.idSpelling),
            address: `${v.before}${v.upper ? address.toUpperCase() : address}${v.after}`,
            ...spell("pubkey_base64", "pubkeyBase64", encodeKey(v.key, v.encoding), v.keySpelling),
            ...(v.label === undefined ? {} : spell("account_label", "accountLabel", v.label, v.labelSpelling)),
          };
          const result = checked(normalizeWalletProof(body, expected));
          expect(result).toEqual({
            ok: true,
            proof: {
              session_id: expected.sessionId,
              address,
              pubkey_base64: base64(v.key),
              account_label: typeof v.label === "string" && v.label !== "" ? v.label : null,
            },
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it("gives a normalized proof back unchanged (normalizing twice is normalizing once)", () => {
    fc.assert(
      fc.property(bytes20, keyBytes, keyEncoding, (data, key, encoding) => {
        const first = normalizeWalletProof(
          {
            session_id: expected.sessionId,
            address: toBech32(PREFIX, data).toUpperCase(),
            pubkeyBase64: encodeKey(key, encoding),
          },
          expected,
        );
        if (!first.ok) throw new Error(first.problem.message);
        expect(normalizeWalletProof(first.proof, expected)).toEqual(first);
      }),
      { numRuns: 100 },
    );
  });
});

describe("normalizeWalletProof refuses the rest with a problem, never a throw", () => {
  it("refuses any JSON value as a whole, or on its session id", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(checked(normalizeWalletProof(value, expected))).toMatchObject({
          ok: false,
          problem: refusalOfArbitrary(value),
        });
      }),
      { numRuns: 500 },
    );
  });

  it("refuses any object with the proof's keys and arbitrary values on its session id", () => {
    const body = fc.dictionary(
      fc.constantFrom(...PROOF_KEYS, "__proto__", "constructor"),
      fc.oneof(fc.string(), fc.jsonValue()),
      { maxKeys: 7 },
    );
    fc.assert(
      fc.property(body, (value) => {
        expect(checked(normalizeWalletProof(value, expected))).toMatchObject({
          ok: false,
          problem: refusalOfArbitrary(value),
        });
      }),
      { numRuns: 500 },
    );
  });

  it(
    "takes any string as the key only when it decodes canonically to a key's size, refusing it as INVALID_PUBKEY " +
      "otherwise",
    () => {
      const base = { session_id: expected.sessionId, address: toBech32(PREFIX, new Uint8Array(20)) };
      fc.assert(
        fc.property(fc.string({ unit: "binary", maxLength: 80 }), (key) => {
          const result = checked(normalizeWalletProof({ ...base, pubkey_base64: key }, expected));
          if (!result.ok) {
            expect(result.problem).toMatchObject({ field: "pubkey_base64", reason: "INVALID_PUBKEY" });
            return;
          }
          const stored = result.proof.pubkey_base64;
          expect(atob(stored).length).toBeGreaterThanOrEqual(PUBKEY_MIN_BYTES);
          expect(btoa(atob(stored))).toBe(stored);
          expect(stored.replace(/=+$/, "")).toBe(key.replace(/=+$/, "").replaceAll("-", "+").replaceAll("_", "/"));
        }),
        { numRuns: 300 },
      );
    },
  );

  it("reads only a body's own fields, never through its prototype", () => {
    const inherited = Object.create({ address: toBech32(PREFIX, new Uint8Array(20)) }) as Record<string, unknown>;
    Object.assign(inherited, { session_id: expected.sessionId, pubkey_base64: base64(new Uint8Array(1952)) });
    expect(normalizeWalletProof(inherited, expected)).toMatchObject({
      ok: false,
      problem: { field: "address", message: "address is required" },
    });
  });

  it("refuses every address with one character changed", () => {
    fc.assert(
      fc.property(
        bytes20,
        fc.nat(),
        fc.constantFrom(..."qpzry9x8gf2tvdw0s3jn54khce6mua7l"),
        (data, at, replacement) => {
          const address = toBech32(PREFIX, data);
          const index = PREFIX.length + 1 + (at % (address.length - PREFIX.length - 1));
          fc.pre(address[index] !== replacement);
          const mutated = address.slice(0, index) + replacement + address.slice(index + 1);
          const result = normalizeWalletProof(
            { session_id: expected.sessionId, address: mutated, pubkey_base64: base64(new Uint8Array(1952)) },
            expected,
          );
          expect(result).toMatchObject({ ok: false, problem: { field: "address", reason: "INVALID_ADDRESS" } });
        },
      ),
      { numRuns: 300 },
    );
  });

  it("refuses both spellings of a field with different values, naming both", () => {
    const valid = {
      session_id: expected.sessionId,
      address: toBech32(PREFIX, new Uint8Array(20)),
      pubkey_base64: base64(new Uint8Array(1952)),
    };
    fc.assert(
      fc.property(
        fc.constantFrom(
          ["session_id", "sessionId"],
          ["pubkey_base64", "pubkeyBase64"],
          ["account_label", "accountLabel"],
        ),
        fc.string({ minLength: 1 }),
        fc.string({ minLength: 1 }),
        ([snake, camel], a, b) => {
          fc.pre(a !== b);
          const result = normalizeWalletProof({ ...valid, [snake!]: a, [camel!]: b }, expected);
          expect(result.ok).toBe(false);
          if (!result.ok) expect(result.problem.message).toContain(`${snake} and ${camel} are both present and differ`);
        },
      ),
    );
  });
});

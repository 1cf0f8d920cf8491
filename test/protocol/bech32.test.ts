import { fromBech32, toBech32 } from "@cosmjs/encoding";
import { bech32 } from "@scure/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeBech32 } from "../../src/protocol/bech32";

/** CosmJS's decoder (the codec of @scure/base underneath): the prefix and payload, or null where it throws. */
function cosmjs(value: string): { prefix: string; bytes: Uint8Array } | null {
  try {
    const { prefix, data } = fromBech32(value, 90);
    return { prefix, bytes: data };
  } catch {
    return null;
  }
}

const CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
const payload = fc.uint8Array({ minLength: 0, maxLength: 40 });
const prefix = fc.constantFrom("hope", "chain", "cosmos", "a", "hopevaloper");
const encoded = fc.tuple(prefix, payload).map(([p, bytes]) => toBech32(p, bytes, 90));
/** An encoded string with one character changed, dropped or added: most are refused, a few still decode. */
const mutated = fc
  .tuple(encoded, fc.nat(), fc.constantFrom(...`${CHARSET}1AB!~ `), fc.integer({ min: 0, max: 2 }))
  .map(([value, at, char, how]) => {
    const i = at % value.length;
    if (how === 0) return value.slice(0, i) + char + value.slice(i + 1);
    if (how === 1) return value.slice(0, i) + value.slice(i + 1);
    return value.slice(0, i) + char + value.slice(i);
  });

describe("bech32 decoding", () => {
  it("decodes every address CosmJS encodes to its prefix and payload", () => {
    fc.assert(
      fc.property(encoded, (value) => {
        expect(decodeBech32(value, 90)).toEqual(cosmjs(value));
      }),
      { numRuns: 500 },
    );
  });

  it("refuses exactly what CosmJS refuses, and agrees on what both take", () => {
    fc.assert(
      fc.property(fc.oneof(mutated, fc.string({ maxLength: 100 })), (value) => {
        const lowercase = value === value.toLowerCase();
        // The address check asks for lowercase before decoding; CosmJS also takes an all-uppercase string.
        fc.pre(lowercase);
        expect(decodeBech32(value, 90)).toEqual(cosmjs(value));
      }),
      { numRuns: 3000 },
    );
  });

  it("refuses a string over the limit, a missing separator, a short checksum and non-zero padding", () => {
    const address = toBech32("hope", new Uint8Array(20).fill(7));
    expect(decodeBech32(address, 90)?.bytes).toEqual(new Uint8Array(20).fill(7));
    expect(decodeBech32(address, address.length - 1)).toBeNull();
    expect(decodeBech32(address.replace("1", "x"), 90)).toBeNull();
    expect(decodeBech32("hope1qqqqq", 90)).toBeNull();
    // Two 5-bit words are one byte and 2 bits of padding, here not zero: a right checksum, a wrong payload.
    const stray = bech32.encode("hope", [31, 31]);
    expect(cosmjs(stray)).toBeNull();
    expect(decodeBech32(stray, 90)).toBeNull();
    expect(decodeBech32(bech32.encode("hope", [31, 28]), 90)?.bytes).toEqual(new Uint8Array([0xff]));
  });
});

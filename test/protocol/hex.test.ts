/** Hex is written once (src/protocol/hex.ts): bytes to lowercase hex and back, for ids, digests and tags alike. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fromHex, toHex } from "../../src/protocol/hex";

describe("hex", () => {
  it("writes two lowercase characters a byte, and reads them back, upper case too", () => {
    expect(toHex(new Uint8Array([0, 1, 15, 16, 255]))).toBe("00010f10ff");
    expect([...fromHex("00010F10ff")]).toEqual([0, 1, 15, 16, 255]);
    expect([...fromHex("")]).toEqual([]);
    fc.assert(fc.property(fc.uint8Array(), (bytes) => toHex(fromHex(toHex(bytes))) === toHex(bytes)));
  });
});

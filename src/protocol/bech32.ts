/**
 * Bech32 decoding (BIP-173), the one codec the Worker needs. The packaged codec (@scure/base)
 * brings every codec of its package along, since its top-level coders cannot be tree-shaken: 2.1
 * KiB gzipped of the Worker for this one function (docs/PERFORMANCE.md). Held to CosmJS's own
 * decoder by test/protocol/bech32.test.ts.
 */

const CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
const GENERATOR = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
/** Characters of the checksum at the end of the data part. */
const CHECKSUM_LENGTH = 6;

function polymod(values: readonly number[]): number {
  let checksum = 1;
  for (const value of values) {
    const top = checksum >>> 25;
    checksum = ((checksum & 0x1ffffff) << 5) ^ value;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) checksum ^= GENERATOR[i]!;
  }
  return checksum;
}

/** The prefix and payload of a lowercase bech32 string of at most `limit` characters; null for anything else. */
export function decodeBech32(value: string, limit: number): { prefix: string; bytes: Uint8Array } | null {
  if (value.length < 8 || value.length > limit || value !== value.toLowerCase()) return null;
  const separator = value.lastIndexOf("1");
  if (separator < 1 || value.length - separator - 1 < CHECKSUM_LENGTH) return null;
  const prefix = value.slice(0, separator);
  const expanded: number[] = [];
  for (let i = 0; i < prefix.length; i++) {
    const code = prefix.charCodeAt(i);
    if (code < 33 || code > 126) return null;
    expanded.push(code >>> 5);
  }
  expanded.push(0);
  for (let i = 0; i < prefix.length; i++) expanded.push(prefix.charCodeAt(i) & 31);
  const words: number[] = [];
  for (const char of value.slice(separator + 1)) {
    const word = CHARSET.indexOf(char);
    if (word < 0) return null;
    words.push(word);
  }
  if (polymod([...expanded, ...words]) !== 1) return null;
  // The 5-bit words regrouped as bytes; what is left over must be under 5 bits and all zero.
  const bytes: number[] = [];
  let carry = 0;
  let bits = 0;
  for (const word of words.slice(0, -CHECKSUM_LENGTH)) {
    carry = ((carry << 5) | word) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((carry >>> bits) & 0xff);
    }
  }
  if (bits >= 5 || (carry & ((1 << bits) - 1)) !== 0) return null;
  return { prefix, bytes: Uint8Array.from(bytes) };
}

/**
 * Bech32 decoding (BIP-173) with the codec of `@scure/base`, the one CosmJS itself uses: a
 * lowercase string only (the address check's rule; the codec also takes an all-uppercase one), and
 * null instead of the codec's throw. Held to CosmJS's own decoder by test/protocol/bech32.test.ts.
 */
import { bech32 } from "@scure/base";

/** The prefix and payload of a lowercase bech32 string of at most `limit` characters; null for anything else. */
export function decodeBech32(value: string, limit: number): { prefix: string; bytes: Uint8Array } | null {
  if (value !== value.toLowerCase()) return null;
  try {
    const { prefix, words } = bech32.decode(value as `${string}1${string}`, limit);
    // Leftover bits that are not zero padding throw here, as CosmJS refuses them.
    return { prefix, bytes: bech32.fromWords(words) };
  } catch {
    return null;
  }
}

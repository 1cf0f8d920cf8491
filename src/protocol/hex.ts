/** Bytes as lowercase hex, two characters a byte: ids, digests and tags, everywhere alike. */
export function toHex(bytes: Uint8Array | ArrayBuffer): string {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Lowercase or uppercase hex, two characters a byte, as bytes; the caller checks the text is hex of even length. */
export function fromHex(hex: string): Uint8Array {
  return Uint8Array.from(hex.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));
}

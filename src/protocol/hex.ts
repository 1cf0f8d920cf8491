/** Bytes as lowercase hex, two characters a byte: ids, digests and tags, everywhere alike. */
export function toHex(bytes: Uint8Array | ArrayBuffer): string {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Deterministic figures and bytes derived from labels, so every devnet run shows the same chain. */
import { createHash } from "node:crypto";

/** `length` bytes derived from `label` (SHA-256 blocks, concatenated). */
export function seedBytes(label: string, length = 20): Buffer {
  const blocks: Buffer[] = [];
  for (let i = 0; blocks.length * 32 < length; i++)
    blocks.push(
      createHash("sha256")
        .update(`devnet:${label}${i ? `#${i}` : ""}`)
        .digest(),
    );
  return Buffer.concat(blocks).subarray(0, length);
}

/** A number in [min, max) derived from a label. */
export function seeded(label: string, min: number, max: number): number {
  const n = createHash("sha256").update(`devnet-n:${label}`).digest().readUInt32BE(0);
  return min + (n % (max - min));
}

/** A Cosmos `LegacyDec` string (18 places) without float noise. */
export const dec = (value: number) => `${value.toFixed(6)}000000000000`;

const ATTO = 10n ** 18n;

/** A `LegacyDec` string (18 places) of `atto` / 10^18, the form DecCoin amounts take. */
export function decFromAtto(atto: bigint): string {
  return `${atto / ATTO}.${(atto % ATTO).toString().padStart(18, "0")}`;
}

/**
 * A QR code encoder small enough for the Worker: byte mode, error correction level L (as the
 * page's codes have always been), the smallest version that holds the text, the mask with the
 * lowest penalty (ISO/IEC 18004's four rules). It exists so that the Worker can put the connect
 * QR into the page's first response as an SVG; a general library would not fit the bundle.
 */

/** A QR code: `size` × `size` modules, `dark(x, y)` for column x, row y (no quiet zone). */
export interface QrMatrix {
  readonly size: number;
  readonly version: number;
  readonly mask: number;
  dark(x: number, y: number): boolean;
}

// Per version 1–40 at level L: error correction codewords per block, and the number of blocks.
const ECC_PER_BLOCK = [
  7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28, 28, 28, 30, 30, 26, 28, 30, 30, 30, 30,
  30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
];
const BLOCKS = [
  1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8, 8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19,
  20, 21, 22, 24, 25,
];
/** Level L's two format bits. */
const LEVEL_L = 1;

/** Encodes `text` (UTF-8 bytes), with the best mask or the one given; throws when it does not fit a version-40 code. */
export function encodeQr(text: string, forcedMask?: number): QrMatrix {
  const bytes = new TextEncoder().encode(text);
  let version = 1;
  for (; ; version++) {
    if (version > 40) throw new Error("The text is too long for a QR code");
    const capacityBits = dataCodewords(version) * 8;
    if (4 + (version < 10 ? 8 : 16) + bytes.length * 8 <= capacityBits) break;
  }
  const data = dataWithPadding(bytes, version);
  const codewords = withErrorCorrection(data, version);
  const grid = new Grid(version);
  grid.place(codewords);
  let best = 0;
  let bestPenalty = Infinity;
  for (let mask = forcedMask ?? 0; mask < (forcedMask ?? 7) + 1; mask++) {
    grid.apply(mask);
    const penalty = grid.penalty();
    if (penalty < bestPenalty) [best, bestPenalty] = [mask, penalty];
    grid.apply(mask); // XOR again: undone
  }
  grid.apply(best);
  const { size, modules } = grid;
  return { size, version, mask: best, dark: (x, y) => modules[y * size + x] === 1 };
}

/** Bits of the data region of `version`, less the function patterns, in whole codewords. */
function rawCodewords(version: number): number {
  let bits = (16 * version + 128) * version + 64;
  if (version >= 2) {
    const align = Math.floor(version / 7) + 2;
    bits -= (25 * align - 10) * align - 55;
    if (version >= 7) bits -= 36;
  }
  return Math.floor(bits / 8);
}

function dataCodewords(version: number): number {
  return rawCodewords(version) - ECC_PER_BLOCK[version - 1]! * BLOCKS[version - 1]!;
}

/** Mode, count, the bytes, the terminator and the 0xEC 0x11 padding, as codewords. */
function dataWithPadding(bytes: Uint8Array, version: number): number[] {
  const bits: number[] = [];
  const put = (value: number, length: number) => {
    for (let i = length - 1; i >= 0; i--) bits.push((value >>> i) & 1);
  };
  put(0b0100, 4);
  put(bytes.length, version < 10 ? 8 : 16);
  for (const byte of bytes) put(byte, 8);
  const capacity = dataCodewords(version) * 8;
  put(0, Math.min(4, capacity - bits.length));
  put(0, (8 - (bits.length % 8)) % 8);
  for (let pad = 0xec; bits.length < capacity; pad ^= 0xec ^ 0x11) put(pad, 8);
  const out: number[] = [];
  for (let i = 0; i < bits.length; i += 8) out.push(bits.slice(i, i + 8).reduce((a, b) => (a << 1) | b, 0));
  return out;
}

/** Splits the data into blocks, appends each block's Reed–Solomon codewords, and interleaves. */
function withErrorCorrection(data: number[], version: number): number[] {
  const blocks = BLOCKS[version - 1]!;
  const ecc = ECC_PER_BLOCK[version - 1]!;
  const raw = rawCodewords(version);
  const shortBlocks = blocks - (raw % blocks);
  const shortLength = Math.floor(raw / blocks);
  const divisor = generator(ecc);
  const split: { data: number[]; ecc: number[] }[] = [];
  for (let i = 0, at = 0; i < blocks; i++) {
    const length = shortLength - ecc + (i < shortBlocks ? 0 : 1);
    const part = data.slice(at, at + length);
    at += length;
    split.push({ data: part, ecc: remainder(part, divisor) });
  }
  const out: number[] = [];
  for (let i = 0; i <= shortLength - ecc; i++)
    for (const block of split) if (i < block.data.length) out.push(block.data[i]!);
  for (let i = 0; i < ecc; i++) for (const block of split) out.push(block.ecc[i]!);
  return out;
}

/** Product in GF(2^8) with the QR polynomial x^8 + x^4 + x^3 + x^2 + 1. */
function multiply(a: number, b: number): number {
  let product = 0;
  for (let i = 7; i >= 0; i--) {
    product = (product << 1) ^ ((product >>> 7) * 0x11d);
    product ^= ((b >>> i) & 1) * a;
  }
  return product;
}

/** The generator polynomial of degree `degree` (coefficients after the leading 1, highest first). */
function generator(degree: number): number[] {
  const result = new Array<number>(degree).fill(0);
  result[degree - 1] = 1;
  let root = 1;
  for (let i = 0; i < degree; i++) {
    for (let j = 0; j < degree; j++) {
      result[j] = multiply(result[j]!, root) ^ (j + 1 < degree ? result[j + 1]! : 0);
    }
    root = multiply(root, 0x02);
  }
  return result;
}

function remainder(data: number[], divisor: number[]): number[] {
  const result = new Array<number>(divisor.length).fill(0);
  for (const byte of data) {
    const factor = byte ^ result.shift()!;
    result.push(0);
    divisor.forEach((coefficient, i) => (result[i] = result[i]! ^ multiply(coefficient, factor)));
  }
  return result;
}

const MASKS: ((x: number, y: number) => boolean)[] = [
  (x, y) => (x + y) % 2 === 0,
  (_, y) => y % 2 === 0,
  (x) => x % 3 === 0,
  (x, y) => (x + y) % 3 === 0,
  (x, y) => (Math.floor(x / 3) + Math.floor(y / 2)) % 2 === 0,
  (x, y) => ((x * y) % 2) + ((x * y) % 3) === 0,
  (x, y) => (((x * y) % 2) + ((x * y) % 3)) % 2 === 0,
  (x, y) => (((x + y) % 2) + ((x * y) % 3)) % 2 === 0,
];

/** The module grid of one version: function patterns drawn first, then the codewords, then a mask. */
class Grid {
  readonly size: number;
  readonly modules: Uint8Array;
  /** 1 where a function pattern (finder, timing, alignment, format, version) lies. */
  private readonly reserved: Uint8Array;

  constructor(version: number) {
    this.size = version * 4 + 17;
    this.modules = new Uint8Array(this.size * this.size);
    this.reserved = new Uint8Array(this.size * this.size);
    const size = this.size;
    for (let i = 0; i < size; i++) {
      this.fn(6, i, i % 2 === 0);
      this.fn(i, 6, i % 2 === 0);
    }
    for (const [x, y] of [
      [3, 3],
      [size - 4, 3],
      [3, size - 4],
    ] as const) {
      for (let dy = -4; dy <= 4; dy++) {
        for (let dx = -4; dx <= 4; dx++) {
          const d = Math.max(Math.abs(dx), Math.abs(dy));
          const [px, py] = [x + dx, y + dy];
          if (px >= 0 && px < size && py >= 0 && py < size) this.fn(px, py, d !== 2 && d !== 4);
        }
      }
    }
    const positions = alignmentPositions(version, size);
    const last = positions.length - 1;
    positions.forEach((x, i) =>
      positions.forEach((y, j) => {
        // Not over the three finders.
        if ((i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0)) return;
        for (let dy = -2; dy <= 2; dy++)
          for (let dx = -2; dx <= 2; dx++) this.fn(x + dx, y + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
      }),
    );
    this.format(0); // reserves the format areas; rewritten with the real mask
    if (version >= 7) {
      let rem = version;
      for (let i = 0; i < 12; i++) rem = (rem << 1) ^ ((rem >>> 11) * 0x1f25);
      const bits = (version << 12) | rem;
      for (let i = 0; i < 18; i++) {
        const dark = ((bits >>> i) & 1) === 1;
        const [a, b] = [size - 11 + (i % 3), Math.floor(i / 3)];
        this.fn(a, b, dark);
        this.fn(b, a, dark);
      }
    }
  }

  /** Writes the codewords in the zigzag order, two columns at a time from the bottom right. */
  place(codewords: number[]): void {
    const size = this.size;
    let i = 0;
    for (let right = size - 1; right >= 1; right -= 2) {
      if (right === 6) right = 5;
      for (let vertical = 0; vertical < size; vertical++) {
        for (let j = 0; j < 2; j++) {
          const x = right - j;
          const y = ((right + 1) & 2) === 0 ? size - 1 - vertical : vertical;
          if (this.reserved[y * size + x] || i >= codewords.length * 8) continue;
          this.modules[y * size + x] = (codewords[i >>> 3]! >>> (7 - (i & 7))) & 1;
          i++;
        }
      }
    }
  }

  /** XORs `mask` over the data modules (applying it twice undoes it) and writes its format bits. */
  apply(mask: number): void {
    const { size, modules, reserved } = this;
    const test = MASKS[mask]!;
    for (let y = 0; y < size; y++)
      for (let x = 0; x < size; x++) if (!reserved[y * size + x] && test(x, y)) modules[y * size + x]! ^= 1;
    this.format(mask);
  }

  /** The standard's penalty: runs, 2×2 blocks, finder-like patterns, and the dark share. */
  penalty(): number {
    const { size, modules } = this;
    const at = (x: number, y: number) => modules[y * size + x]!;
    let score = 0;
    let dark = 0;
    for (let pass = 0; pass < 2; pass++) {
      for (let a = 0; a < size; a++) {
        let run = 0;
        let previous = -1;
        let window = 0;
        for (let b = 0; b < size; b++) {
          const value = pass === 0 ? at(b, a) : at(a, b);
          if (value === previous) {
            run++;
            if (run === 5) score += 3;
            else if (run > 5) score++;
          } else {
            run = 1;
            previous = value;
          }
          // 1:1:3:1:1 with four light modules on one side (11 modules).
          window = ((window << 1) | value) & 0x7ff;
          if (b >= 10 && (window === 0b10111010000 || window === 0b00001011101)) score += 40;
        }
      }
    }
    for (let y = 0; y < size; y++) {
      for (let x = 0; x < size; x++) {
        dark += at(x, y);
        if (x < size - 1 && y < size - 1) {
          const v = at(x, y);
          if (v === at(x + 1, y) && v === at(x, y + 1) && v === at(x + 1, y + 1)) score += 3;
        }
      }
    }
    const total = size * size;
    return score + Math.floor(Math.abs(dark * 20 - total * 10) / total) * 10;
  }

  /** The 15 format bits (level L and `mask`), in both copies, and the dark module. */
  private format(mask: number): void {
    const size = this.size;
    const data = (LEVEL_L << 3) | mask;
    let rem = data;
    for (let i = 0; i < 10; i++) rem = (rem << 1) ^ ((rem >>> 9) * 0x537);
    const bits = ((data << 10) | rem) ^ 0x5412;
    const bit = (i: number) => ((bits >>> i) & 1) === 1;
    for (let i = 0; i <= 5; i++) this.fn(8, i, bit(i));
    this.fn(8, 7, bit(6));
    this.fn(8, 8, bit(7));
    this.fn(7, 8, bit(8));
    for (let i = 9; i < 15; i++) this.fn(14 - i, 8, bit(i));
    for (let i = 0; i < 8; i++) this.fn(size - 1 - i, 8, bit(i));
    for (let i = 8; i < 15; i++) this.fn(8, size - 15 + i, bit(i));
    this.fn(8, size - 8, true);
  }

  private fn(x: number, y: number, dark: boolean): void {
    this.modules[y * this.size + x] = dark ? 1 : 0;
    this.reserved[y * this.size + x] = 1;
  }
}

/** Centres of the alignment patterns along one axis (none for version 1). */
function alignmentPositions(version: number, size: number): number[] {
  if (version === 1) return [];
  const count = Math.floor(version / 7) + 2;
  const step = version === 32 ? 26 : Math.ceil((version * 4 + 4) / (count * 2 - 2)) * 2;
  const result = [6];
  for (let position = size - 7; result.length < count; position -= step) result.splice(1, 0, position);
  return result;
}

/**
 * What an SVG of the code draws, with a four-module quiet zone: the side of its square viewBox,
 * and one path of horizontal strokes, one per run of dark modules (stroked, 1 module wide, along
 * each row's centre line), to lay on a white square so that a dark page keeps the zone light.
 */
export function qrDrawing(text: string): { side: number; d: string } {
  const code = encodeQr(text);
  let d = "";
  for (let y = 0; y < code.size; y++) {
    let x = 0;
    let penX = -1;
    while (x < code.size) {
      if (!code.dark(x, y)) {
        x++;
        continue;
      }
      const start = x;
      while (x < code.size && code.dark(x, y)) x++;
      d += penX < 0 ? `M${start + 4} ${y + 4.5}` : `m${start - penX} 0`;
      d += `h${x - start}`;
      penX = x;
    }
  }
  return { side: code.size + 8, d };
}

/**
 * The code as SVG markup (`qrDrawing`). Needs no script and no style: `fill`, `stroke` and
 * `shape-rendering` are presentation attributes.
 */
export function qrSvg(text: string, attributes: Record<string, string> = {}): string {
  const { side, d } = qrDrawing(text);
  const extra = Object.entries(attributes)
    .map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`)
    .join("");
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${side} ${side}" shape-rendering="crispEdges"${extra}><rect width="${side}" height="${side}" fill="#fff"/><path stroke="#000" d="${d}"/></svg>`;
}

function escapeAttribute(value: string): string {
  return value.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;");
}

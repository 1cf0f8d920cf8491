/** The Worker's QR encoder (src/protocol/qr-code.ts): readable by a decoder of its own, and module for module what qrcode-generator draws. */
import qrcode from "qrcode-generator";
import { describe, expect, it } from "vitest";
import { encodeQr, qrSvg } from "../../src/protocol/qr-code";
import { decodeModules, decodeSvg, svgModules } from "../helpers/qr";

/** Text of `length` characters from a link's alphabet. */
const text = (length: number) =>
  Array.from({ length }, (_, i) => "abcdefghijklmnopqrstuvwxyz0123456789%:/?=-_.ABC"[(i * 7 + length) % 46]).join("");
/** Lengths that reach every kind of version: 1–9 (8-bit count), 10–40 (16-bit), with version information from 7, several blocks from 6. */
const LENGTHS = [
  1, 17, 18, 32, 53, 78, 106, 134, 154, 192, 230, 271, 321, 367, 425, 458, 520, 586, 644, 718, 792, 858, 929, 1003,
  1091, 1171, 1273, 1367, 1465, 1528, 1628, 1732, 1840, 1952, 2068, 2188, 2303, 2431, 2563, 2699, 2953,
];

/** qrcode-generator's code for the same text, as a matrix. */
function reference(length: number): { size: number; dark(x: number, y: number): boolean } {
  const code = qrcode(0, "L");
  code.addData(text(length), "Byte");
  code.make();
  return { size: code.getModuleCount(), dark: (x, y) => code.isDark(y, x) };
}

function modulesOf(code: { size: number; dark(x: number, y: number): boolean }): boolean[][] {
  return Array.from({ length: code.size + 8 }, (_, y) =>
    Array.from(
      { length: code.size + 8 },
      (_, x) => x >= 4 && y >= 4 && x < code.size + 4 && y < code.size + 4 && code.dark(x - 4, y - 4),
    ),
  );
}

describe("encodeQr", () => {
  it("draws codes of versions 1 to 40 as a decoder reads them back (where it reads qrcode-generator's code for the same text)", {
    timeout: 60_000,
  }, () => {
    const read = new Set<number>();
    // Every third version: decoding is slow, and the next test holds every version module for module.
    for (const length of LENGTHS.filter((_, i) => i % 3 === 0 || i === LENGTHS.length - 1)) {
      const code = encodeQr(text(length));
      expect(code.size, `length ${length}`).toBe(code.version * 4 + 17);
      // jsQR cannot read some codes of any encoder (version 23 of these texts): those prove nothing here.
      if (decodeModules(modulesOf(reference(length))) !== text(length)) continue;
      expect(decodeModules(modulesOf(code)), `length ${length}, version ${code.version}`).toBe(text(length));
      read.add(code.version);
    }
    expect(read.size).toBeGreaterThanOrEqual(12);
  });

  it("draws, with qrcode-generator's mask, exactly qrcode-generator's matrix (level L, byte mode, smallest version)", {
    timeout: 60_000,
  }, () => {
    for (const length of LENGTHS) {
      const reference = qrcode(0, "L");
      reference.addData(text(length), "Byte");
      reference.make();
      const matches = [0, 1, 2, 3, 4, 5, 6, 7].filter((mask) => {
        const code = encodeQr(text(length), mask);
        if (code.size !== reference.getModuleCount()) return false;
        for (let y = 0; y < code.size; y++)
          for (let x = 0; x < code.size; x++) if (code.dark(x, y) !== reference.isDark(y, x)) return false;
        return true;
      });
      expect(matches, `length ${length}`).toHaveLength(1);
    }
  });

  it("encodes UTF-8, and refuses text beyond version 40", () => {
    expect(decodeModules(modulesOf(encodeQr("Zürich → ✓")))).toBe("Zürich → ✓");
    expect(() => encodeQr(text(2954))).toThrow(/too long/);
  });
});

describe("qrSvg", () => {
  it("draws the code with a four-module light quiet zone, and its attributes escaped", () => {
    const link = `hopewallet://connect?p=${encodeURIComponent(btoa(text(300)))}`;
    const svg = qrSvg(link, { class: "qr", "aria-label": 'a "quoted" <label>' });
    expect(decodeSvg(svg)).toBe(link);
    const modules = svgModules(svg);
    expect(modules.length).toBe(encodeQr(link).size + 8);
    for (const [i, row] of modules.entries())
      if (i < 4 || i >= modules.length - 4) expect(row.some(Boolean)).toBe(false);
    expect(svg).toContain('aria-label="a &quot;quoted&quot; &lt;label>"');
    expect(svg).toMatch(
      /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" viewBox="0 0 \d+ \d+" shape-rendering="crispEdges" class="qr" aria-label="[^"]*"><rect [^>]*fill="#fff"\/><path stroke="#000" d="M[^"]*"\/><\/svg>$/,
    );
    expect(svg).not.toMatch(/style|script/);
  });
});

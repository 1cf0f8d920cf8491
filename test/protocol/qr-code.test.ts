/**
 * The QR codes the Worker and the page draw (src/protocol/qr-code.ts: uqr's modules as one SVG
 * path), read back by jsQR, a decoder that shares no code with the encoder.
 */
import { describe, expect, it } from "vitest";
import { qrDrawing, qrSvg } from "../../src/protocol/qr-code";
import { decodeSvg, svgModules } from "../helpers/qr";

/** Text of `length` characters from a link's alphabet. */
const text = (length: number) =>
  Array.from({ length }, (_, i) => "abcdefghijklmnopqrstuvwxyz0123456789%:/?=-_.ABC"[(i * 7 + length) % 46]).join("");

const svgOf = (content: string) => qrSvg(content, { class: "qr" });

describe("qrSvg", () => {
  it("draws codes small and large (versions 1 to 40) as a decoder reads them back", { timeout: 60_000 }, () => {
    // A link of a few hundred characters is what the page draws; 2953 bytes is version 40's limit at
    // level L. (jsQR misreads some large codes that other decoders read, so the lengths are ones it reads.)
    for (const length of [1, 53, 271, 586, 1171, 2953])
      expect(decodeSvg(svgOf(text(length))), `length ${length}`).toBe(text(length));
  });

  it("encodes UTF-8, and refuses text beyond version 40", () => {
    expect(decodeSvg(svgOf("Zürich → ✓"))).toBe("Zürich → ✓");
    expect(() => qrDrawing(text(2954))).toThrow(/too long/);
  });

  it("draws the code with a four-module light quiet zone, and its attributes escaped", () => {
    const link = `hopewallet://connect?p=${encodeURIComponent(btoa(text(300)))}`;
    const svg = qrSvg(link, { class: "qr", "aria-label": 'a "quoted" <label>' });
    expect(decodeSvg(svg)).toBe(link);
    const modules = svgModules(svg);
    expect(modules.length).toBe(qrDrawing(link).side);
    for (const [i, row] of modules.entries()) {
      const zone = i < 4 || i >= modules.length - 4;
      expect(row.some(Boolean), `row ${i}`).toBe(!zone);
      expect(row.slice(0, 4).concat(row.slice(-4)).some(Boolean), `row ${i}'s ends`).toBe(false);
    }
    expect(svg).toContain('aria-label="a &quot;quoted&quot; &lt;label&gt;"');
    expect(svg).toMatch(
      new RegExp(
        '^<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \\d+ \\d+" shape-rendering="crispEdges" class="qr" ' +
          'aria-label="[^"]*"><rect [^>]*fill="#fff"/><path stroke="#000" d="M[^"]*"/></svg>$',
      ),
    );
    expect(svg).not.toMatch(/style|script/);
  });
});

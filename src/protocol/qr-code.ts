/**
 * QR codes as the Worker and the page draw them. uqr encodes (error correction level L, the smallest
 * version that fits, its own mask choice); this file only lays the modules out as one SVG path,
 * which the page styles and labels, instead of uqr's one square per module.
 */
import { encode } from "uqr";
import { escapeHtml } from "./html.ts";

/** The quiet zone the standard asks for around the code, in modules. */
const QUIET_ZONE = 4;

/**
 * What an SVG of the code draws, quiet zone included: the side of its square viewBox, and one path
 * of horizontal strokes, one per run of dark modules (stroked, 1 module wide, along each row's
 * centre line), to lay on a white square so that a dark page keeps the zone light.
 */
export function qrDrawing(text: string): { side: number; d: string } {
  const { size, data } = encode(text, { ecc: "L", border: QUIET_ZONE });
  let d = "";
  data.forEach((row, y) => {
    let penX = -1;
    for (let x = 0; x < size; x++) {
      if (!row[x]) continue;
      const start = x;
      while (row[x]) x++;
      d += `${penX < 0 ? `M${start} ${y + 0.5}` : `m${start - penX} 0`}h${x - start}`;
      penX = x;
    }
  });
  return { side: size, d };
}

/**
 * The code as SVG markup (`qrDrawing`). Needs no script and no style: `fill`, `stroke` and
 * `shape-rendering` are presentation attributes.
 */
export function qrSvg(text: string, attributes: Record<string, string> = {}): string {
  const { side, d } = qrDrawing(text);
  const extra = Object.entries(attributes)
    .map(([name, value]) => ` ${name}="${escapeHtml(value)}"`)
    .join("");
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${side} ${side}" shape-rendering="crispEdges"${extra}>` +
    `<rect width="${side}" height="${side}" fill="#fff"/><path stroke="#000" d="${d}"/></svg>`
  );
}

/**
 * Reads a QR code back the way a camera would: the SVG the Worker draws, turned into pixels and
 * decoded by jsQR (a decoder of its own, which shares no code with the encoder).
 */
import jsQR from "jsqr";

/** The dark modules of the SVG's path (quiet zone included), as a square of booleans. */
export function svgModules(svg: string): boolean[][] {
  const side = Number(/viewBox="0 0 (\d+) \1"/.exec(svg)?.[1]);
  const d = /<path[^>]* d="([^"]*)"/.exec(svg)?.[1];
  if (!side || d === undefined) throw new Error("not a QR code's SVG");
  const grid = Array.from({ length: side }, () => new Array<boolean>(side).fill(false));
  let x = 0;
  let y = 0;
  for (const [, command, a, b] of d.matchAll(/([MmHh])([-\d.]+)(?: ([-\d.]+))?/g)) {
    const u = Number(a);
    if (command === "M") [x, y] = [u, Number(b) - 0.5];
    else if (command === "m") [x, y] = [x + u, y + Number(b)];
    else {
      const to = command === "h" ? x + u : u;
      for (let i = x; i < to; i++) grid[y]![i] = true;
      x = to;
    }
  }
  return grid;
}

/** What a QR of these modules says, decoded from pixels (4 per module), or null when unreadable. */
function decodeModules(modules: boolean[][]): string | null {
  const scale = 4;
  const side = modules.length * scale;
  const pixels = new Uint8ClampedArray(side * side * 4).fill(255);
  modules.forEach((row, y) =>
    row.forEach((dark, x) => {
      if (!dark) return;
      for (let dy = 0; dy < scale; dy++) {
        for (let dx = 0; dx < scale; dx++) {
          const i = ((y * scale + dy) * side + x * scale + dx) * 4;
          pixels[i] = pixels[i + 1] = pixels[i + 2] = 0;
        }
      }
    }),
  );
  return jsQR(pixels, side, side, { inversionAttempts: "dontInvert" })?.data ?? null;
}

/** The text of the QR code an SVG draws. */
export function decodeSvg(svg: string): string | null {
  return decodeModules(svgModules(svg));
}

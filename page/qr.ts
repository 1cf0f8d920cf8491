/**
 * QR codes drawn in the page itself, as the Worker draws the first one (src/protocol/qr-code.ts):
 * an inline SVG, so no payload ever leaves for a QR service and no image is encoded.
 */
import { qrDrawing } from "../src/protocol/qr-code.ts";

const SVG = "http://www.w3.org/2000/svg";

/** An `<svg>` of `text` as a QR code, with `label` for screen readers. */
export function qrElement(text: string, label: string): SVGSVGElement {
  const { side, d } = qrDrawing(text);
  const make = <K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string>) => {
    const node = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
    return node;
  };
  const svg = make("svg", {
    viewBox: `0 0 ${side} ${side}`,
    "shape-rendering": "crispEdges",
    class: "qr",
    role: "img",
    "aria-label": label,
  });
  svg.append(
    make("rect", { width: String(side), height: String(side), fill: "#fff" }),
    make("path", { stroke: "#000", d }),
  );
  return svg;
}

/**
 * QR codes drawn in the page itself (qrcode-generator): no payload ever leaves for a QR service.
 * The image is a `data:` GIF, which the page's CSP (`img-src 'self' data:`) allows.
 */
import qrcode from "qrcode-generator";

/** The `data:` GIF of `text` as a QR code, and its side in pixels. DOM-free, so tests can draw the expected image. */
export function qrDataUrl(text: string): { src: string; size: number } {
  const code = qrcode(0, "L");
  code.addData(text, "Byte");
  code.make();
  const modules = code.getModuleCount() + 8;
  // Cells of at least 3 px keep dense codes scannable; CSS scales the image down to the screen.
  const cell = Math.max(3, Math.ceil(296 / modules));
  return { src: code.createDataURL(cell, cell * 4), size: modules * cell };
}

/** An `<img>` of `text` as a QR code, with `alt` for screen readers. */
export function qrImage(text: string, alt: string): HTMLImageElement {
  const { src, size } = qrDataUrl(text);
  const img = document.createElement("img");
  img.src = src;
  img.alt = alt;
  img.className = "qr";
  img.width = img.height = size;
  return img;
}

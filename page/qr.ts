/**
 * QR codes drawn in the page itself (qrcode-generator): no payload ever leaves for a QR service.
 * The image is a `data:` GIF, which the page's CSP (`img-src 'self' data:`) allows.
 */
import qrcode from "qrcode-generator";

/** An `<img>` of `text` as a QR code, with `alt` for screen readers. */
export function qrImage(text: string, alt: string): HTMLImageElement {
  const code = qrcode(0, "L");
  code.addData(text, "Byte");
  code.make();
  const modules = code.getModuleCount() + 8;
  // Cells of at least 3 px keep dense codes scannable; CSS scales the image down to the screen.
  const cell = Math.max(3, Math.ceil(296 / modules));
  const img = document.createElement("img");
  img.src = code.createDataURL(cell, cell * 4);
  img.alt = alt;
  img.className = "qr";
  img.width = img.height = modules * cell;
  return img;
}

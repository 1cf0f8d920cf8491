/** Writes one benchmark's section of docs/PERFORMANCE.md between its markers, leaving the rest alone. */
import { existsSync, readFileSync, writeFileSync } from "node:fs";

const FILE = new URL("../../docs/PERFORMANCE.md", import.meta.url);

export function writeReportSection(name: string, markdown: string): void {
  const begin = `<!-- ${name}:begin -->`;
  const end = `<!-- ${name}:end -->`;
  const block = `${begin}\n${markdown.trim()}\n${end}`;
  const text = existsSync(FILE) ? readFileSync(FILE, "utf8") : "# Performance\n";
  const at = text.indexOf(begin);
  const next =
    at === -1
      ? `${text.trimEnd()}\n\n${block}\n`
      : text.slice(0, at) + block + text.slice(text.indexOf(end) + end.length);
  writeFileSync(FILE, next);
}

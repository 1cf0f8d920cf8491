/**
 * No line of src/, durable-objects/, page/ or test/ is longer than 120 characters (`npm run lint`
 * runs this). Biome lays code out within its line width but never breaks a comment or a string;
 * `--fix` breaks comments between words (a trailing comment moves above its line), and leaves
 * every other long line, a string to split by hand, to the list it prints.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const MAX = 120;
const FOLDERS = ["src", "durable-objects", "page", "test"];

function tsFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return /\.(ts|mts|js)$/.test(entry.name) ? [path] : [];
  });
}

/** `text` as lines of at most `width` characters, each starting with `lead`, broken between words. */
function wrap(lead: string, text: string, width = MAX): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line !== "" && lead.length + line.length + 1 + word.length > width) {
      lines.push(lead + line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  return [...lines, lead + line];
}

/** The lines that replace one long comment line, or null when it is not a comment `--fix` can break. */
function brokenComment(line: string): string[] | null {
  let m = /^(\s*)\/\/ ?(.*)$/.exec(line);
  if (m) return wrap(`${m[1]}// `, m[2]!);
  m = /^(\s*)\/\*\* (.*?) \*\/$/.exec(line);
  if (m) return [`${m[1]}/**`, ...wrap(`${m[1]} * `, m[2]!), `${m[1]} */`];
  m = /^(\s*)\* (.*)$/.exec(line);
  if (m) return wrap(`${m[1]}* `, m[2]!);
  // Code with a comment after it: the comment goes above the code.
  m = /^(\s*)(\S.*?[;,{(\[]) \/\/ (.*)$/.exec(line);
  const quotesClosed = (code: string) => [..."\"'`"].every((q) => code.split(q).length % 2 === 1);
  if (m && quotesClosed(m[2]!) && m[1]!.length + m[2]!.length <= MAX)
    return [...wrap(`${m[1]}// `, m[3]!), `${m[1]}${m[2]}`];
  return null;
}

const fix = process.argv.includes("--fix");
const long: string[] = [];
for (const file of FOLDERS.flatMap(tsFiles).sort()) {
  const lines = readFileSync(file, "utf8").split("\n");
  const out: string[] = [];
  lines.forEach((line, i) => {
    if (line.length <= MAX) return void out.push(line);
    const broken = fix ? brokenComment(line) : null;
    if (broken && broken.every((l) => l.length <= MAX)) out.push(...broken);
    else {
      out.push(line);
      long.push(`${file}:${i + 1}: ${line.length} characters`);
    }
  });
  if (fix && out.length !== lines.length) writeFileSync(file, out.join("\n"));
}
if (long.length > 0) {
  console.error(`${long.join("\n")}\n${long.length} line(s) longer than ${MAX} characters`);
  process.exitCode = 1;
}

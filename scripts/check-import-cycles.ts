/**
 * `npm run check:cycles`: fails when modules of the Worker, the Durable Objects or the page import
 * each other in a cycle, type-only imports included (a cycle hides which module owns a shape).
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";

const files = execFileSync("git", ["ls-files", "src/*.ts", "durable-objects/*.ts", "page/*.ts"], { encoding: "utf8" })
  .split("\n")
  .filter(Boolean);
const known = new Set(files);

function resolve(from: string, specifier: string): string | null {
  const base = normalize(join(dirname(from), specifier));
  for (const candidate of [base, `${base}.ts`, join(base, "index.ts")]) if (known.has(candidate)) return candidate;
  return null;
}

const imports = new Map<string, string[]>();
for (const file of files) {
  const text = readFileSync(file, "utf8");
  const targets = [...text.matchAll(/(?:import|export)\s[^;]*?from\s+["'](\.{1,2}\/[^"']+)["']/g)].map((m) =>
    resolve(file, m[1]!),
  );
  imports.set(
    file,
    targets.filter((t): t is string => t !== null),
  );
}

const cycles: string[] = [];
const state = new Map<string, "visiting" | "done">();
const path: string[] = [];
function visit(file: string): void {
  state.set(file, "visiting");
  path.push(file);
  for (const next of imports.get(file) ?? []) {
    if (state.get(next) === "visiting") cycles.push([...path.slice(path.indexOf(next)), next].join(" → "));
    else if (!state.has(next)) visit(next);
  }
  path.pop();
  state.set(file, "done");
}
for (const file of files) if (!state.has(file)) visit(file);

if (cycles.length > 0) {
  console.error(`Import cycles:\n${cycles.join("\n")}`);
  process.exitCode = 1;
} else {
  console.log(`check:cycles: ${files.length} modules, no import cycles`);
}

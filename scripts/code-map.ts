/**
 * The code map of docs/ARCHITECTURE.md is written by hand, and checked here so that it stays
 * complete: every folder under `src/` (at any depth), every top-level code folder, every file of
 * `durable-objects/` at any depth, and every Durable Object class `src/index.ts` exports must be named in it.
 * A path counts when it appears in backticks in the map's first column (a top-level folder also
 * through any path inside it); a class counts when the `src/index.ts` row names it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const MAP_FILE = "docs/ARCHITECTURE.md";
/** Top-level folders that hold no code of the project (documentation, tools' output, installs). */
const NOT_CODE = new Set(["docs", "node_modules", "dist", "test-results"]);

/** What the map lacks, one sentence each; empty when it is complete. */
export function codeMapProblems(root = "."): string[] {
  const rows = mapRows(readFileSync(join(root, MAP_FILE), "utf8"));
  const paths = new Set(rows.flatMap((row) => row.paths));
  const problems: string[] = [];

  for (const folder of topLevelFolders(root)) {
    if (![...paths].some((path) => path.startsWith(`${folder}/`))) problems.push(`the top-level folder \`${folder}/\``);
  }
  for (const folder of foldersUnder(root, "src")) {
    if (!paths.has(`${folder}/`)) problems.push(`the folder \`${folder}/\``);
  }
  for (const file of readdirSync(join(root, "durable-objects"), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts"))
    .sort()) {
    if (!paths.has(`durable-objects/${file}`)) problems.push(`the file \`durable-objects/${file}\``);
  }
  const entry = rows.find((row) => row.paths.includes("src/index.ts"));
  for (const name of durableObjectExports(readFileSync(join(root, "src/index.ts"), "utf8"))) {
    if (!entry || !new RegExp(`\\b${name}\\b`).test(entry.job))
      problems.push(`the Durable Object class ${name} (exported by src/index.ts) in the \`src/index.ts\` row`);
  }
  return problems.map((what) => `${MAP_FILE}'s code map does not name ${what}`);
}

/** The rows of the table under `## Code map`: the backticked paths of the first column, and the rest of the row. */
function mapRows(text: string): { paths: string[]; job: string }[] {
  const at = text.indexOf("\n## Code map\n");
  if (at === -1) throw new Error(`${MAP_FILE} has no "## Code map" section`);
  const section = text.slice(at + 1).split(/\n## /)[0]!;
  return section
    .split("\n")
    .filter((line) => line.startsWith("|") && !/^\|\s*-/.test(line))
    .map((line) => {
      const [first = "", ...rest] = line.split("|").slice(1, -1);
      return { paths: [...first.matchAll(/`([^`]+)`/g)].map((m) => m[1]!), job: rest.join("|") };
    });
}

function topLevelFolders(root: string): string[] {
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith(".") && !NOT_CODE.has(entry.name))
    .map((entry) => entry.name)
    .sort();
}

function foldersUnder(root: string, folder: string): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => [`${folder}/${entry.name}`, ...foldersUnder(root, `${folder}/${entry.name}`)])
    .sort();
}

/** The names `src/index.ts` re-exports from durable-objects/: the classes wrangler.toml binds. */
function durableObjectExports(source: string): string[] {
  return [...source.matchAll(/export\s*\{([^}]*)\}\s*from\s*["']\.\.\/durable-objects\/[^"']+["']/g)].flatMap((m) =>
    m[1]!
      .split(",")
      .map(
        (name) =>
          name
            .trim()
            .split(/\s+as\s+/)
            .pop()!,
      )
      .filter(Boolean),
  );
}

/**
 * `npm run docs` writes the generated documentation; `npm run docs -- --check` fails when a
 * checked-in copy differs from what the code generates (run by `npm test`), so the references
 * cannot drift from the route table, the OpenAPI document and the configuration schema: docs/API.md,
 * the README's configuration table, docs/GATEWAY.md's route table, wrangler.toml's commented
 * variables and .dev.vars.example (the secrets by name). Both also fail when docs/ARCHITECTURE.md's
 * hand-written code map misses a folder or a Durable Object (scripts/code-map.ts), or when the page
 * names a binding or a dependency the Worker no longer has, or misses one it has
 * (scripts/architecture-facts.ts), or when a doc links to a file or a section that is not there
 * (scripts/doc-links.ts).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { architectureProblems } from "./architecture-facts.ts";
import { codeMapProblems } from "./code-map.ts";
import { linkProblems } from "./doc-links.ts";
import { loadReference } from "./load-reference.ts";

{
  const reference = await loadReference();
  const generated: Record<string, string> = {
    "docs/API.md": reference.apiReference(),
    "README.md": withBlock("README.md", "configuration", reference.configurationTable()),
    "docs/GATEWAY.md": withBlock("docs/GATEWAY.md", "routes", reference.gatewayRoutesTable()),
    "wrangler.toml": withBlock("wrangler.toml", "vars", reference.wranglerVarsBlock(), (line) => `# ${line}`),
    ".dev.vars.example": reference.devVarsExample(),
  };
  const check = process.argv.includes("--check");
  const stale: string[] = [];
  for (const [path, text] of Object.entries(generated)) {
    let current = "";
    try {
      current = readFileSync(path, "utf8");
    } catch {
      // Not written yet.
    }
    if (current === text) continue;
    if (check) stale.push(path);
    else writeFileSync(path, text);
  }
  const docs = Object.fromEntries(
    ["README.md", ...readdirSync("docs").map((name) => `docs/${name}`)]
      .filter((path) => path.endsWith(".md") && path !== "docs/ARCHITECTURE.md")
      .map((path) => [path, readFileSync(path, "utf8")]),
  );
  const unmapped = [
    ...codeMapProblems(),
    ...architectureProblems({
      architecture: readFileSync("docs/ARCHITECTURE.md", "utf8"),
      wranglerToml: readFileSync("wrangler.toml", "utf8"),
      packageJson: readFileSync("package.json", "utf8"),
      packageLock: readFileSync("package-lock.json", "utf8"),
      docs,
    }),
  ];
  for (const problem of unmapped) console.error(`${problem} (the page is written by hand; it is not generated)`);
  const broken = linkProblems(
    { ...docs, "docs/ARCHITECTURE.md": readFileSync("docs/ARCHITECTURE.md", "utf8") },
    existsSync,
    (path) => (existsSync(path) ? readFileSync(path, "utf8") : null),
  );
  for (const problem of broken) console.error(problem);
  if (stale.length > 0) {
    console.error(
      `Generated documentation is out of date: ${stale.join(", ")}. Run \`npm run docs\` and commit the result.`,
    );
    process.exitCode = 1;
  } else if (unmapped.length > 0 || broken.length > 0) {
    process.exitCode = 1;
  } else {
    console.log(check ? "docs: generated documentation is up to date" : "docs: written");
  }
}

/**
 * `path`'s text with the generated `table` between its `<!-- name:begin -->` and
 * `<!-- name:end -->` lines (`marker` turns those into comments of another language: TOML's `#`).
 */
function withBlock(path: string, name: string, table: string, marker = (line: string) => `<!-- ${line} -->`): string {
  const text = readFileSync(path, "utf8");
  const [begin, end] = [marker(`${name}:begin`), marker(`${name}:end`)];
  const at = text.indexOf(`${begin}\n`);
  const until = text.indexOf(end, at);
  if (at === -1 || until === -1) throw new Error(`${path} has no ${begin} … ${end} block`);
  return `${text.slice(0, at + begin.length + 1)}${table}\n${text.slice(until)}`;
}

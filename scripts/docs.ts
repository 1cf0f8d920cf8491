/**
 * `npm run docs` writes the generated documentation; `npm run docs -- --check` fails when a
 * checked-in copy differs from what the code generates (run by `npm test`), so the references
 * cannot drift from the route table, the OpenAPI document and the configuration schema.
 */
import { build } from "esbuild";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const dir = mkdtempSync(join(tmpdir(), "chain-edge-docs-"));
const outfile = join(dir, "reference.mjs");
try {
  await build({ entryPoints: ["scripts/docs/reference.ts"], outfile, bundle: true, format: "esm", platform: "neutral", logLevel: "warning", mainFields: ["module", "main"] });
  const reference = (await import(pathToFileURL(outfile).href)) as { apiReference(): string; configurationTable(): string };
  const readme = readFileSync("README.md", "utf8");
  const block = /(<!-- configuration:begin -->\n)[\s\S]*?(<!-- configuration:end -->)/;
  if (!block.test(readme)) throw new Error("README.md has no <!-- configuration:begin --> … <!-- configuration:end --> block");
  const generated: Record<string, string> = {
    "docs/API.md": reference.apiReference(),
    "README.md": readme.replace(block, `$1${reference.configurationTable()}\n$2`),
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
  if (stale.length > 0) {
    console.error(`Generated documentation is out of date: ${stale.join(", ")}. Run \`npm run docs\` and commit the result.`);
    process.exitCode = 1;
  } else {
    console.log(check ? "docs: generated documentation is up to date" : "docs: written");
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

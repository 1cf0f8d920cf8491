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
  const reference = (await import(pathToFileURL(outfile).href)) as { apiReference(): string; configurationTable(): string; gatewayRoutesTable(): string };
  const generated: Record<string, string> = {
    "docs/API.md": reference.apiReference(),
    "README.md": withBlock("README.md", "configuration", reference.configurationTable()),
    "docs/GATEWAY.md": withBlock("docs/GATEWAY.md", "routes", reference.gatewayRoutesTable()),
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

/** `path`'s text with the generated `table` between its `<!-- name:begin -->` and `<!-- name:end -->` lines. */
function withBlock(path: string, name: string, table: string): string {
  const text = readFileSync(path, "utf8");
  const block = new RegExp(`(<!-- ${name}:begin -->\\n)[\\s\\S]*?(<!-- ${name}:end -->)`);
  if (!block.test(text)) throw new Error(`${path} has no <!-- ${name}:begin --> … <!-- ${name}:end --> block`);
  return text.replace(block, `$1${table}\n$2`);
}

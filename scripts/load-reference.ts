/**
 * Loads scripts/docs/reference.ts in Node: bundled with esbuild into a temporary file first, so the
 * Worker's own modules (extensionless imports, package.json) need no Node-specific form.
 */
import { build } from "esbuild";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

export interface Reference {
  apiReference(): string;
  configurationTable(): string;
  gatewayRoutesTable(): string;
  wranglerVarsBlock(): string;
  devVarsExample(): string;
  openApiTemplate(): string;
}

export async function loadReference(): Promise<Reference> {
  const dir = mkdtempSync(join(tmpdir(), "chain-edge-docs-"));
  const outfile = join(dir, "reference.mjs");
  try {
    await build({
      entryPoints: ["scripts/docs/reference.ts"],
      outfile,
      bundle: true,
      format: "esm",
      platform: "neutral",
      logLevel: "warning",
      mainFields: ["module", "main"],
    });
    return (await import(pathToFileURL(outfile).href)) as Reference;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

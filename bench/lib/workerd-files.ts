/** Files a bare workerd config embeds, written beside it. */
import { transformSync } from "esbuild";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Writes the in-memory Cache API backend (workerd-cache-service.ts, as JavaScript) into `dir`; returns its file name. */
export function writeCacheService(dir: string): string {
  const source = readFileSync(new URL("./workerd-cache-service.ts", import.meta.url), "utf8");
  writeFileSync(join(dir, "cache-service.js"), transformSync(source, { loader: "ts", format: "esm" }).code);
  return "cache-service.js";
}

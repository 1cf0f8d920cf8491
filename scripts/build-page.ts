/**
 * `npm run build`: bundles the onboarding page (page/main.ts and the DOM-free builders it imports
 * from src/) into public/app.js with esbuild. wrangler.toml's [build] runs it before every
 * `wrangler dev` and `wrangler deploy`; `npm test` runs it first. Prints the bundle's size.
 */
import { build } from "esbuild";
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";

const outfile = "public/app.js";
await build({
  entryPoints: ["page/main.ts"],
  outfile,
  bundle: true,
  format: "esm",
  platform: "browser",
  target: ["es2022"],
  minify: true,
  sourcemap: "linked",
  legalComments: "linked",
  logLevel: "warning",
});
const bytes = readFileSync(outfile);
console.log(`page: ${outfile} ${(bytes.length / 1024).toFixed(1)} KiB (${(gzipSync(bytes).length / 1024).toFixed(1)} KiB gzipped)`);

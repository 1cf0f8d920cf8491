/**
 * `npm run build`: bundles the onboarding page (page/main.ts and the DOM-free builders it imports
 * from src/) into public/app.js, the API reference page into public/reference.js, and the host's
 * dashboard (page/dashboard/, with uPlot) into public/dashboard/app.js, and the stylesheets (page/styles.css,
 * page/dashboard/dashboard.css, each with page/palette.css, and uPlot's as charts.css) into public/, with esbuild,
 * and writes the OpenAPI document's template (public/api/openapi.template.json, which the Worker
 * fills with its configuration: src/openapi/template.ts). wrangler.toml's [build] runs it before every
 * `wrangler dev` and `wrangler deploy`; `npm test` runs it first. Prints the bundles' sizes.
 */
import { build } from "esbuild";
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import writeOpenApiTemplate, { OPENAPI_TEMPLATE_FILE } from "./openapi-template.ts";

await build({
  entryPoints: {
    app: "page/main.ts",
    reference: "page/reference.ts",
    "dashboard/app": "page/dashboard/main.ts",
  },
  outdir: "public",
  bundle: true,
  format: "esm",
  platform: "browser",
  target: ["es2022"],
  minify: true,
  sourcemap: "linked",
  legalComments: "linked",
  logLevel: "warning",
});
// The stylesheets, each with the palette they @import (page/palette.css) inlined, and uPlot's. No source map: the
// page's is put inline in its first response (src/page/index.ts).
await build({
  entryPoints: {
    styles: "page/styles.css",
    "dashboard/dashboard": "page/dashboard/dashboard.css",
    "dashboard/charts": "node_modules/uplot/dist/uPlot.min.css",
  },
  outdir: "public",
  bundle: true,
  minify: true,
  target: ["chrome100", "safari15", "firefox100"],
  logLevel: "warning",
});
await writeOpenApiTemplate();
for (const outfile of [
  "public/app.js",
  "public/reference.js",
  "public/dashboard/app.js",
  "public/styles.css",
  "public/dashboard/dashboard.css",
  OPENAPI_TEMPLATE_FILE,
]) {
  const bytes = readFileSync(outfile);
  console.log(
    `page: ${outfile} ${(bytes.length / 1024).toFixed(1)} KiB (${(gzipSync(bytes).length / 1024).toFixed(1)} KiB gzipped)`,
  );
}

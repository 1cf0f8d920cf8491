import { build } from "esbuild";
import { gzipSync } from "node:zlib";
const r = await build({
  entryPoints: ["src/index.ts"],
  bundle: true,
  minify: true,
  format: "esm",
  platform: "neutral",
  write: false,
  metafile: true,
  conditions: ["workerd", "worker", "browser"],
  external: ["cloudflare:*", "node:*"],
  mainFields: ["module", "main"],
  logLevel: "error",
});
const out = Object.values(r.metafile.outputs)[0];
const byPkg = {};
for (const [f, v] of Object.entries(out.inputs)) {
  const key = f.includes("node_modules") ? f.replace(/.*node_modules\/((?:@[^/]+\/)?[^/]+).*/, "$1") : f;
  byPkg[key] = (byPkg[key] ?? 0) + v.bytesInOutput;
}
const rows = Object.entries(byPkg).sort((a, b) => b[1] - a[1]);
console.log("total", r.outputFiles[0].contents.length, "gz", gzipSync(r.outputFiles[0].contents, { level: 9 }).length);
for (const [k, v] of rows.slice(0, Number(process.argv[2] ?? 45))) console.log(String(v).padStart(7), k);

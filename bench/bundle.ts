/**
 * Worker size and startup (run by hand: `npm run bench:bundle`).
 *
 * Bundles the Worker as `wrangler deploy` does, then measures what it costs an isolate to start:
 * parsing, compiling and evaluating the module in V8 (the engine workerd runs), each time in a
 * fresh Node process so no code cache helps, beside a module that does nothing, in one run.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildWorker } from "../scripts/build-worker.ts";
import { writeReportSection } from "./lib/report.ts";
import { machine, summarize } from "./lib/stats.ts";

const RUNS = 15;
const bundle = buildWorker();

// Node has no `cloudflare:workers`; a stub with the one class the bundle extends stands in.
const stub = join(bundle.dir, "cloudflare-workers-stub.mjs");
writeFileSync(stub, "export class DurableObject { constructor(ctx, env) { this.ctx = ctx; this.env = env; } }\n");
const ours = join(bundle.dir, "worker-under-node.mjs");
// Every import of it (esbuild writes one per Durable Object module).
writeFileSync(
  ours,
  readFileSync(bundle.mainPath, "utf8").replaceAll(/from\s*"cloudflare:workers"/g, `from ${JSON.stringify(stub)}`),
);
const floor = join(bundle.dir, "floor.mjs");
writeFileSync(floor, 'export default { fetch() { return new Response("{}"); } };\n');

/** Milliseconds to import `path` in a fresh process. */
function importTime(path: string): number {
  const probe = `const t = performance.now(); await import(${JSON.stringify(path)}); console.log(performance.now() - t);`;
  return Number(execFileSync(process.execPath, ["--input-type=module", "-e", probe], { encoding: "utf8" }).trim());
}

const oursMs: number[] = [];
const floorMs: number[] = [];
for (let i = 0; i < RUNS; i++) {
  oursMs.push(importTime(ours));
  floorMs.push(importTime(floor));
}

rmSync(bundle.dir, { recursive: true, force: true });
const a = summarize(oursMs);
const b = summarize(floorMs);
const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
const report = `
## Worker size and startup

\`npm run bench:bundle\` — one run on ${machine()}. The bundle is what \`wrangler deploy\` uploads
(\`--dry-run\`); CI fails above 80 KiB gzipped (\`npm run check:bundle\`). Startup is the time to
parse, compile and evaluate the module in V8 in a fresh process (median of ${RUNS}), beside a module
that does nothing.

| measure | figure |
|---|---|
| Worker bundle | ${kib(bundle.bytes)} (${kib(bundle.gzipBytes)} gzipped) |
| module load, ours, p50 / max | ${a.p50.toFixed(2)} ms / ${a.max.toFixed(2)} ms |
| module load, empty module, p50 | ${b.p50.toFixed(2)} ms |
| what our code adds to an isolate's start (difference of medians) | ${(a.p50 - b.p50).toFixed(2)} ms |
`;
console.log(report);
writeReportSection("bundle", report);

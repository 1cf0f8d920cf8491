/**
 * Worker size and startup (run by hand: `npm run bench:bundle`).
 *
 * Bundles the Worker as `wrangler deploy` does, then measures what it costs an isolate to start
 * (scripts/start-cost.ts, the measure `npm run check:bundle` gates): parsing, compiling and
 * evaluating the module in V8, each time in a fresh Node process, beside a module that does nothing.
 */
import { rmSync } from "node:fs";
import { loadavg } from "node:os";
import { buildWorker } from "../scripts/build-worker.ts";
import { measureStartCost, START_RUNS } from "../scripts/start-cost.ts";
import { writeReportSection } from "./lib/report.ts";
import { machine, summarize } from "./lib/stats.ts";

const bundle = buildWorker();
const { ours: oursMs, floor: floorMs } = measureStartCost(bundle);
rmSync(bundle.dir, { recursive: true, force: true });
const a = summarize(oursMs);
const b = summarize(floorMs);
const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
const report = `
## Worker size and startup

What our code adds to an isolate's start: **${(a.p50 - b.p50).toFixed(1)} ms** (gate 35 ms); the Worker:
**${kib(bundle.gzipBytes)} gzipped** (gate 128 KiB). CI fails past either (\`npm run check:bundle\`).

\`npm run bench:bundle\` — one run on ${machine()}, load average ${loadavg()[0]!.toFixed(1)}. The bundle is
what \`wrangler deploy\` uploads (\`--dry-run\`). Startup is the main thread's CPU time to parse,
compile and evaluate the module in V8 in a fresh process, median of ${START_RUNS}, beside a module that
does nothing, alternately in one run (scripts/start-cost.ts); other work on the machine still inflates it.

| measure | figure |
|---|---|
| Worker bundle | ${kib(bundle.bytes)} (${kib(bundle.gzipBytes)} gzipped) |
| module load, ours, p50 / max | ${a.p50.toFixed(2)} ms / ${a.max.toFixed(2)} ms |
| module load, empty module, p50 | ${b.p50.toFixed(2)} ms |
| what our code adds to an isolate's start (difference of medians) | ${(a.p50 - b.p50).toFixed(2)} ms |
`;
console.log(report);
writeReportSection("bundle", report);

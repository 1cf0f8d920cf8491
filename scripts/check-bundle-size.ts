/**
 * CI gate on the cold start (`npm run check:bundle`): what the Worker's code adds to an isolate's
 * start stays at or under 35 ms (median of 15 beside an empty module, in this run:
 * scripts/start-cost.ts), and the deployed Worker stays at or under 128 KiB gzipped, a backstop
 * against a dependency that came in whole.
 */
import { rmSync } from "node:fs";
import { buildWorker } from "./build-worker.ts";
import { measureStartCost, START_RUNS } from "./start-cost.ts";

const LIMIT_BYTES = 128 * 1024;
const START_LIMIT_MS = 35;

const bundle = buildWorker();
let start;
try {
  start = measureStartCost(bundle);
} finally {
  rmSync(bundle.dir, { recursive: true, force: true });
}
const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
console.log(
  `Worker bundle: ${kib(bundle.bytes)}, ${kib(bundle.gzipBytes)} gzipped (limit ${kib(LIMIT_BYTES)} gzipped)`,
);
console.log(
  `Start cost: ${start.addedMs.toFixed(2)} ms over an empty module (median of ${START_RUNS}; limit ${START_LIMIT_MS} ms)`,
);
let failed = false;
if (bundle.gzipBytes > LIMIT_BYTES) {
  console.error(
    "The Worker is over the size limit: look for a dependency that came in whole (classic zod, a CommonJS package).",
  );
  failed = true;
}
if (start.addedMs > START_LIMIT_MS) {
  console.error("The Worker's code adds more than the limit to an isolate's start: look at what runs at import time.");
  failed = true;
}
if (failed) process.exit(1);

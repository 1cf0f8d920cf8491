/**
 * CI gate: the deployed Worker must stay at or under 80 KiB gzipped, so it starts instantly
 * everywhere. `npm run check:bundle`.
 */
import { rmSync } from "node:fs";
import { buildWorker } from "./build-worker.ts";

const LIMIT_BYTES = 80 * 1024;
const bundle = buildWorker();
rmSync(bundle.dir, { recursive: true, force: true });
const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
console.log(
  `Worker bundle: ${kib(bundle.bytes)}, ${kib(bundle.gzipBytes)} gzipped (limit ${kib(LIMIT_BYTES)} gzipped)`,
);
if (bundle.gzipBytes > LIMIT_BYTES) {
  console.error(
    "The Worker is over the size limit: look for a dependency that came in whole (classic zod, a CommonJS package).",
  );
  process.exit(1);
}

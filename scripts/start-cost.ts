/**
 * What the Worker's code adds to an isolate's start: the CPU time V8 (the engine workerd runs) takes
 * to parse, compile and evaluate the bundle, each time in a fresh Node process so no code cache
 * helps, less the same for a module that does nothing. The two are measured alternately in one run
 * and compared by their medians; CPU time, not the wall clock, so other work on the machine counts
 * as little as it can. `npm run check:bundle` gates it;
 * `npm run bench:bundle` reports it.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { WorkerBundle } from "./build-worker.ts";

/** Samples of each module: the median of 15. */
export const START_RUNS = 15;

export interface StartCost {
  /** Milliseconds to import the Worker's bundle, one per run. */
  ours: number[];
  /** Milliseconds to import an empty module, one per run. */
  floor: number[];
  /** Median of `ours` less median of `floor`. */
  addedMs: number;
}

const median = (samples: readonly number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/**
 * Milliseconds of CPU (user and system) the main thread spends importing `path` in a fresh process: on a busy
 * machine the wall clock counts the time other processes ran, CPU time does not.
 */
function importTime(path: string): number {
  const probe =
    "const c = process.threadCpuUsage(); " +
    `await import(${JSON.stringify(path)}); ` +
    "const d = process.threadCpuUsage(c); console.log((d.user + d.system) / 1000);";
  return Number(execFileSync(process.execPath, ["--input-type=module", "-e", probe], { encoding: "utf8" }).trim());
}

/** Measures `bundle` (its files are written beside it, in its own directory) against an empty module. */
export function measureStartCost(bundle: WorkerBundle, runs = START_RUNS): StartCost {
  // Node has no `cloudflare:workers`; a stub with the one class the bundle extends stands in.
  const stub = join(bundle.dir, "cloudflare-workers-stub.mjs");
  writeFileSync(stub, "export class DurableObject { constructor(ctx, env) { this.ctx = ctx; this.env = env; } }\n");
  const worker = join(bundle.dir, "worker-under-node.mjs");
  // Every import of it (esbuild writes one per Durable Object module).
  writeFileSync(
    worker,
    readFileSync(bundle.mainPath, "utf8").replaceAll(/from\s*"cloudflare:workers"/g, `from ${JSON.stringify(stub)}`),
  );
  const empty = join(bundle.dir, "floor.mjs");
  writeFileSync(empty, 'export default { fetch() { return new Response("{}"); } };\n');
  const ours: number[] = [];
  const floor: number[] = [];
  for (let i = 0; i < runs; i++) {
    ours.push(importTime(worker));
    floor.push(importTime(empty));
  }
  return { ours, floor, addedMs: median(ours) - median(floor) };
}

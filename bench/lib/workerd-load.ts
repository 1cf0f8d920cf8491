/** One autocannon load of a route served by a bare workerd, with the workerd process's CPU per request. */
import autocannon from "autocannon";
import type { IncomingHttpHeaders } from "node:http";
import { processCpuMicros } from "./process-cpu.ts";
import { summarize } from "./stats.ts";

export const CONNECTIONS = 10;

export interface Target {
  label: string;
  url: string;
  /** True when the answer is the one being measured (a 200, and for the hit `x-cache: HIT`). */
  expected: (status: number, headers: IncomingHttpHeaders) => boolean;
  /** A POST with this JSON body (the RPC face's calls); a GET without one. */
  body?: string;
}

export interface Run {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  unexpected: number;
  cpuMicrosPerRequest: number;
}

const median = (values: number[]) => summarize(values).p50;

/** Loads `target` for `seconds`; CPU is the process `pid`'s own, read before and after. */
async function load(pid: number, target: Target, seconds: number): Promise<Run> {
  let unexpected = 0;
  const onResponse = (status: number, _body: string, _context: object, headers: IncomingHttpHeaders | undefined) => {
    if (!target.expected(status, headers ?? {})) unexpected++;
  };
  const cpuBefore = processCpuMicros(pid);
  const result = await autocannon({
    url: target.url,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      target.body === undefined
        ? { method: "GET", onResponse }
        : { method: "POST", body: target.body, headers: { "content-type": "application/json" }, onResponse },
    ],
  });
  const cpu = processCpuMicros(pid) - cpuBefore;
  const requests = result.requests.total;
  // Thousands of answers cost CPU; none seen means the pid is not the process that answered.
  if (cpu <= 0 || requests === 0) throw new Error(`${target.label}: ${requests} answers for ${cpu} µs of workerd CPU`);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests,
    unexpected: unexpected + result.errors + result.timeouts,
    cpuMicrosPerRequest: cpu / requests,
  };
}

/** A response header by lower-case name, as one string. */
export function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const found = Object.entries(headers).find(([n]) => n.toLowerCase() === name)?.[1];
  return Array.isArray(found) ? found.join(", ") : found;
}

/**
 * Loads every target once briefly (so no round pays for compiling the code), then `rounds`
 * rounds that load each target in turn for `seconds`: neighbours in time share the machine's
 * state, so ratios taken within a round hold up better than figures across runs.
 */
export async function alternatingRounds(
  pid: number,
  targets: readonly Target[],
  rounds: number,
  seconds: number,
): Promise<Run[][]> {
  for (const target of targets) await load(pid, target, 1);
  const runs = targets.map(() => [] as Run[]);
  for (let round = 0; round < rounds; round++) {
    for (const [i, target] of targets.entries()) runs[i]!.push(await load(pid, target, seconds));
  }
  return runs;
}

/** One target's rounds summarized: medians, each round's CPU, and totals. */
export function summarizeRuns(runs: readonly Run[]) {
  return {
    cpu: median(runs.map((x) => x.cpuMicrosPerRequest)),
    rounds: runs.map((x) => x.cpuMicrosPerRequest.toFixed(0)).join(" / "),
    rps: median(runs.map((x) => x.rps)),
    p50: median(runs.map((x) => x.p50)),
    p99: median(runs.map((x) => x.p99)),
    requests: runs.reduce((n, x) => n + x.requests, 0),
    unexpected: runs.reduce((n, x) => n + x.unexpected, 0),
  };
}

/** CPU and throughput of `runs` over `base`, round by round, with their medians. */
export function roundRatios(runs: readonly Run[], base: readonly Run[]) {
  const cpu = runs.map((x, r) => x.cpuMicrosPerRequest / base[r]!.cpuMicrosPerRequest);
  const rps = runs.map((x, r) => x.rps / base[r]!.rps);
  return { cpu, cpuMedian: median(cpu), rps, rpsMedian: median(rps) };
}

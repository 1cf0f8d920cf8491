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
}

export interface Run {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  unexpected: number;
  cpuMicrosPerRequest: number;
}

export const median = (values: number[]) => summarize(values).p50;

/** Loads `target` for `seconds`; CPU is the process `pid`'s own, read before and after. */
export async function load(pid: number, target: Target, seconds: number): Promise<Run> {
  let unexpected = 0;
  const onResponse = (status: number, _body: string, _context: object, headers: IncomingHttpHeaders | undefined) => {
    if (!target.expected(status, headers ?? {})) unexpected++;
  };
  const cpuBefore = processCpuMicros(pid);
  const result = await autocannon({ url: target.url, connections: CONNECTIONS, duration: seconds, requests: [{ method: "GET", onResponse }] });
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

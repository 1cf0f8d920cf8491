/**
 * Gateway benchmark (run by hand: `npm run bench:gateway`), loopback only, about 40 s.
 *
 * Starts its own devnet and `wrangler dev` (temporary `--persist-to`) and measures, in one run:
 *  1. cache-hit throughput and p50/p99 of a gateway query beside `/api/config`, a route that does
 *     no work (the runtime's own floor), alternating so both see the same machine state;
 *  2. upstream requests for bursts of concurrent cold requests (read from the devnet's counters),
 *     beside what a plain caching proxy would send (one per request).
 * Writes the figures to docs/PERFORMANCE.md (section "gateway").
 */
import autocannon from "autocannon";
import { randomBytes } from "node:crypto";
import { startLocalStack } from "./lib/local-stack.ts";
import { writeReportSection } from "./lib/report.ts";
import { machine } from "./lib/stats.ts";

const PORT = Number(process.env.BENCH_PORT ?? 8787);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = 10;
const ROUNDS = 2;

const stack = await startLocalStack({ port: PORT });
const base = stack.worker.url;

interface Load {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  bad: number;
}

async function load(path: string): Promise<Load> {
  const result = await autocannon({ url: `${base}${path}`, connections: CONNECTIONS, duration: SECONDS });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    bad: result.non2xx + result.errors + result.timeouts,
  };
}

function combine(runs: Load[]): Load {
  const n = runs.length;
  return {
    rps: runs.reduce((s, r) => s + r.rps, 0) / n,
    p50: runs.reduce((s, r) => s + r.p50, 0) / n,
    p99: Math.max(...runs.map((r) => r.p99)),
    requests: runs.reduce((s, r) => s + r.requests, 0),
    bad: runs.reduce((s, r) => s + r.bad, 0),
  };
}

async function upstreamCount(prefix: string): Promise<number> {
  const response = await stack.control("GET", `requests?prefix=${encodeURIComponent(prefix)}`);
  return ((await response.json()) as { count: number }).count;
}

/** `size` concurrent requests for one cold key; returns the upstream requests it cost and the statuses. */
async function coldBurst(size: number, upstreamDelayMs: number): Promise<{ upstream: number; ok: number }> {
  const key = randomBytes(9).toString("base64url");
  const path = `/cosmos/bank/v1beta1/supply?pagination.key=${key}`;
  if (upstreamDelayMs) await stack.control("POST", "faults", { prefix: path, delay_ms: upstreamDelayMs });
  const statuses = await Promise.all(
    Array.from({ length: size }, () =>
      fetch(`${base}/api${path}`).then(async (r) => (await r.arrayBuffer(), r.status)),
    ),
  );
  await stack.control("DELETE", "faults");
  return { upstream: await upstreamCount(path), ok: statuses.filter((s) => s === 200).length };
}

try {
  const { namespace } = (await (await fetch(`${base}/api/config`)).json()) as { namespace: string };
  const hitPath = `/api/${namespace}/incentives/v1/params`;
  const warm = await fetch(`${base}${hitPath}`);
  await warm.arrayBuffer();
  const check = await fetch(`${base}${hitPath}`);
  await check.arrayBuffer();
  if (check.headers.get("x-cache") !== "HIT")
    throw new Error(`expected a cache hit, got ${check.headers.get("x-cache")}`);

  const floorRuns: Load[] = [];
  const hitRuns: Load[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    floorRuns.push(await load("/api/config"));
    hitRuns.push(await load(hitPath));
  }
  const floor = combine(floorRuns);
  const hit = combine(hitRuns);
  const upstreamDuringHits = await upstreamCount(`/${namespace}/incentives/v1/params`);

  const bursts = [
    { size: 100, delay: 0 },
    { size: 100, delay: 150 },
    { size: 300, delay: 150 },
  ];
  const burstRows: string[] = [];
  for (const burst of bursts) {
    const { upstream, ok } = await coldBurst(burst.size, burst.delay);
    burstRows.push(
      `| ${burst.size} concurrent cold requests, upstream answers in ${burst.delay ? `${burst.delay} ms` : "~1 ms"} | ${upstream} | ${burst.size} | ${ok}/${burst.size} |`,
    );
  }

  const ms = (v: number) => `${v.toFixed(1)} ms`;
  const markdown = `
## Gateway

\`npm run bench:gateway\` — one run on ${machine()}, against \`wrangler dev\` with the devnet as
upstream, ${CONNECTIONS} connections, ${ROUNDS}×${SECONDS} s per route, alternating. Dev-server figures
(autocannon on the same 2 cores): compare the rows within the run, not across machines.

| route | requests/s | p50 | p99 | requests (non-2xx/errors) |
|---|---|---|---|---|
| \`/api/config\` (no work: the runtime's floor) | ${floor.rps.toFixed(0)} | ${ms(floor.p50)} | ${ms(floor.p99)} | ${floor.requests} (${floor.bad}) |
| \`${hitPath}\` (cache hit) | ${hit.rps.toFixed(0)} | ${ms(hit.p50)} | ${ms(hit.p99)} | ${hit.requests} (${hit.bad}) |
| cache hit ÷ floor | ${(hit.rps / floor.rps).toFixed(2)}× | | | |

The ${hit.requests} cache hits cost ${upstreamDuringHits} upstream request${upstreamDuringHits === 1 ? "" : "s"} (the warm-up miss). A hit on a hot key
is answered from the isolate's memory before it is validated (its URL is the key of a validated
request): the floor's work plus the gateway's headers and the access-log line, no I/O.

Cold bursts (one key each, all requests sent at once; upstream requests read from the devnet's counters):

| burst | upstream requests | a plain caching proxy | answered 200 |
|---|---|---|---|
${burstRows.join("\n")}
`;
  writeReportSection("gateway", markdown);
  console.log(markdown);
} finally {
  await stack.stop();
}

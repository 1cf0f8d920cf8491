/**
 * The shield tier's figures (`npm run bench:shield`, about 4 minutes), loopback only:
 *  - bench:colos for 1, 2, 5 and 10 data centers, shield on and off (upstream requests per key
 *    for a cold herd, and answers at a lower height after a higher one with a lagging node);
 *  - in one bare workerd with three data centers (two with the shield, one without): a hit on a
 *    hot key with the shield on and off (CPU per request, req/s, latency, alternating rounds),
 *    and the latency of a data-center miss: direct, through the shield when it holds the answer,
 *    and through the shield when it must ask the upstream;
 *  - Durable Object requests per million queries at a few hit ratios, from the measured counts.
 * Writes docs/PERFORMANCE.md (section "shield").
 */
import { toBech32 } from "@cosmjs/encoding";
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { loadavg } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { buildWorker } from "../scripts/build-worker.ts";
import { startColoStack, type ColoStack } from "./lib/colo-stack.ts";
import { simulateColos, type ColoReport } from "./lib/colo-sim.ts";
import { writeReportSection } from "./lib/report.ts";
import { machine, summarize } from "./lib/stats.ts";
import { wranglerWorkerd } from "./lib/workerd-binary.ts";
import { alternatingRounds, CONNECTIONS, header, roundRatios, summarizeRuns, type Target } from "./lib/workerd-load.ts";

const COLOS = [1, 2, 5, 10];
const REQUESTS = 100;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** The timed keys' TTL (balances) and a second: with no SWR window, every tier must then ask again. */
const PAST_TTL_MS = (5 + 1) * 1000;
/** Cold keys timed one at a time for each kind of data-center miss. */
const MISSES = 60;
/** Data centers of the path measurements: 0 and 1 with the shield, 2 without. */
const WITH_SHIELD = 0;
const OTHER_CITY = 1;
const WITHOUT_SHIELD = 2;

interface Timed {
  ms: number;
  cache: string | null;
  shield: string | null;
}

async function timed(url: string): Promise<Timed> {
  const started = performance.now();
  const response = await fetch(url);
  await response.arrayBuffer();
  const ms = performance.now() - started;
  return {
    ms,
    cache: response.headers.get("x-cache"),
    shield:
      /(?:^|,)\s*shield;(?:dur=[\d.]+;)?desc="([^"]+)"/.exec(response.headers.get("server-timing") ?? "")?.[1] ?? null,
  };
}

/**
 * Data-center misses timed one at a time, interleaved so they share the machine's noise. First on
 * fresh keys (the key's shield object is created), then on the same keys once every tier's copy
 * has expired (the stack runs with no SWR window), while the objects are still in memory: each miss
 * makes one upstream round either way.
 */
async function missLatencies(stack: ColoStack) {
  const address = () => toBech32(stack.words.bech32_prefix, randomBytes(20));
  const url = (edge: number, path: string) => `${stack.edges[edge]}/api${path}`;
  const kinds = {
    hit: [] as Timed[],
    direct: [] as Timed[],
    shieldNew: [] as Timed[],
    shieldHit: [] as Timed[],
    directAgain: [] as Timed[],
    shieldAgain: [] as Timed[],
  };
  const paths = Array.from({ length: MISSES }, () => `/cosmos/bank/v1beta1/balances/${address()}`);
  for (const path of paths) {
    kinds.direct.push(await timed(url(WITHOUT_SHIELD, path)));
    kinds.shieldNew.push(await timed(url(WITH_SHIELD, path)));
    kinds.shieldHit.push(await timed(url(OTHER_CITY, path)));
    kinds.hit.push(await timed(url(WITH_SHIELD, path)));
  }
  await sleep(PAST_TTL_MS);
  for (const path of paths) {
    kinds.directAgain.push(await timed(url(WITHOUT_SHIELD, path)));
    kinds.shieldAgain.push(await timed(url(WITH_SHIELD, path)));
  }
  const expected: Record<keyof typeof kinds, [string, string | null]> = {
    hit: ["HIT", null],
    direct: ["MISS", null],
    shieldNew: ["MISS", "MISS"],
    shieldHit: ["MISS", "HIT"],
    directAgain: ["MISS", null],
    shieldAgain: ["MISS", "MISS"],
  };
  const unexpected = Object.entries(kinds).flatMap(([kind, list]) =>
    list
      .filter(
        (t) =>
          t.cache !== expected[kind as keyof typeof kinds][0] || t.shield !== expected[kind as keyof typeof kinds][1],
      )
      .map((t) => `${kind}: ${t.cache} / ${t.shield}`),
  );
  if (unexpected.length > 0)
    throw new Error(`unexpected answers while timing misses: ${unexpected.slice(0, 5).join("; ")}`);
  return Object.fromEntries(
    Object.entries(kinds).map(([kind, list]) => [kind, summarize(list.map((t) => t.ms))]),
  ) as Record<keyof typeof kinds, ReturnType<typeof summarize>>;
}

/** A hit on a hot key with the shield on and off, loaded in alternating rounds. */
async function hitPath(stack: ColoStack) {
  const path = `/api/${stack.words.namespace}/incentives/v1/params`;
  const hit = (status: number, headers: Parameters<Target["expected"]>[1]) =>
    status === 200 && header(headers, "x-cache") === "HIT";
  const targets: Target[] = [
    { label: "shield on", url: `${stack.edges[WITH_SHIELD]}${path}`, expected: hit },
    { label: "shield off", url: `${stack.edges[WITHOUT_SHIELD]}${path}`, expected: hit },
  ];
  for (const target of targets) for (let i = 0; i < 2; i++) await (await fetch(target.url)).arrayBuffer();
  const runs = await alternatingRounds(stack.pid, targets, ROUNDS, SECONDS);
  const rows = runs.map((r, i) => ({ label: targets[i]!.label, ...summarizeRuns(r) }));
  const ratio = roundRatios(runs[0]!, runs[1]!);
  return { rows, cpuRatio: ratio.cpuMedian, cpuRatios: ratio.cpu, rpsRatio: ratio.rpsMedian };
}

const bundle = buildWorker();
try {
  const colos: ColoReport[] = [];
  for (const n of COLOS) {
    for (const shield of [true, false]) {
      const report = await simulateColos({ colos: n, requests: REQUESTS, shield, bundle });
      console.log(
        `colos ${n}, shield ${report.shield}: max upstream requests per key ${report.herd.max_upstream_requests_per_key}, lower after higher ${report.lagging_node.lower_after_higher} (${report.seconds} s)`,
      );
      colos.push(report);
    }
  }
  const stack = await startColoStack({
    colos: 3,
    vars: { CACHE_SWR_SECONDS: "0" },
    edgeVars: (i) => ({ CACHE_SHIELD: i === WITHOUT_SHIELD ? "off" : "on" }),
    bundle,
  });
  let misses: Awaited<ReturnType<typeof missLatencies>>;
  let hits: Awaited<ReturnType<typeof hitPath>>;
  const loadAverage = loadavg()[0]!.toFixed(1);
  try {
    misses = await missLatencies(stack);
    hits = await hitPath(stack);
  } finally {
    await stack.stop();
  }
  if (hits.rows.some((h) => h.unexpected > 0))
    throw new Error(`unexpected answers under load: ${JSON.stringify(hits.rows)}`);

  const of = (n: number, shield: "on" | "off") => colos.find((r) => r.colos === n && r.shield === shield)!;
  const perKey = (r: ColoReport) =>
    Object.values(r.herd.keys)
      .map((k) => (k as { upstream_requests: number }).upstream_requests)
      .join(" / ");
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  const extra = misses.shieldAgain.p50 - misses.directAgain.p50;
  const doPerMillion = (hitRatio: number) => Math.round((1 - hitRatio) * 1_000_000);
  const markdown = `
## Shield tier

\`npm run bench:shield\` — one run on ${machine()} (load average ${loadAverage} before the paths were timed), workerd ${wranglerWorkerd().version}, loopback only: every
data center is an edge service of one bare workerd (its own isolate and Cache API), all binding one
shield namespace, against the devnet (two nodes as mount tags, counted by the devnet).
\`npm run bench:colos -- --colos N --shield on|off\` reproduces one row.

### Upstream requests per key, cold herd

${REQUESTS} concurrent requests per data center for the same key, all data centers at once; three keys
(\`params\`, \`supply\`, one \`balances\`), upstream requests per key as the nodes counted them. This is
also the upstream cost of one key per TTL: each data center whose entry expired refreshes it once.

| data centers | shield on | shield off | answers at a lower height after a higher one, lagging node (on / off) |
|---|---|---|---|
${COLOS.map((n) => `| ${n} | ${perKey(of(n, "on"))} | ${perKey(of(n, "off"))} | ${of(n, "on").lagging_node.lower_after_higher} / ${of(n, "off").lagging_node.lower_after_higher} |`).join("\n")}

So with the shield a key costs 1 upstream request per TTL whatever the number of data centers; without it,
one per data center that has the key in its cache (up to the number of data centers). Lagging node: node 2
reports heights ${of(5, "on").lagging_node.lag_blocks} blocks lower; half the data centers ask first (node 1 answers), then node 1 refuses
and every data center asks again after the TTL; an answer counts when its height is lower than one some
client had already received when it asked (${REQUESTS} requests per data center and key, two keys).

### A hit, and a data-center miss

A hit on a hot key (\`/api/<ns>/incentives/v1/params\`) in two data centers of one workerd, one with the
shield and one without; autocannon with ${CONNECTIONS} connections for ${SECONDS} s, ${ROUNDS} alternating rounds, medians;
CPU is the workerd process's own per request; the ratio is taken within each round, then the median.

| hit | CPU per request | each round | requests/s | p50 | p99 |
|---|---|---|---|---|---|
${hits.rows.map((h) => `| ${h.label} | ${h.cpu.toFixed(0)} µs | ${h.rounds} | ${h.rps.toFixed(0)} | ${h.p50} ms | ${h.p99} ms |`).join("\n")}
| on ÷ off | ${hits.cpuRatio.toFixed(2)}× | ${hits.cpuRatios.map((v) => v.toFixed(2)).join(" / ")} | ${hits.rpsRatio.toFixed(2)}× | | |

A hit never reaches the shield (the isolate's memory or the Cache API answers it, the same code with the
shield on or off), so the two rows differ by the machine's noise only.

Data-center misses, one at a time (n = ${MISSES} each, interleaved), as the client saw them; on
\`balances\` keys, in data centers running with \`CACHE_SWR_SECONDS=0\` so that ${PAST_TTL_MS / 1000} s after a first
round every tier must ask again while the shield objects are still in memory:

| request | p50 | p99 |
|---|---|---|
| data-center hit | ${ms(misses.hit.p50)} | ${ms(misses.hit.p99)} |
| miss, the shield holds the answer (one shield round trip, no upstream) | ${ms(misses.shieldHit.p50)} | ${ms(misses.shieldHit.p99)} |
| miss, shield off: the upstream directly | ${ms(misses.directAgain.p50)} | ${ms(misses.directAgain.p99)} |
| miss through the shield, which asks the upstream | ${ms(misses.shieldAgain.p50)} | ${ms(misses.shieldAgain.p99)} |
| first miss of a new key, shield off | ${ms(misses.direct.p50)} | ${ms(misses.direct.p99)} |
| first miss of a new key through the shield (its object is created) | ${ms(misses.shieldNew.p50)} | ${ms(misses.shieldNew.p99)} |

On one machine a data-center miss through the shield costs ${ms(extra)} more than a direct one (p50): one
Durable Object call (the shield answering from memory costs ${ms(misses.shieldHit.p50 - misses.hit.p50)} over a data-center hit);
a key's first miss, or the first after its object was evicted for idleness, also pays for starting the
object (${ms(misses.shieldNew.p50 - misses.direct.p50)} here). Deployed, add the network round trip from the data center to the
shield's location (not measured here): small inside the shield's region, an intercontinental round trip
outside it. With \`CACHE_SHIELD_LOCATION\` near the nodes, the shield's own leg to the upstream is short,
so for a far data center that round trip largely replaces its own trip to the nodes.

### Durable Object requests

Every data-center miss is one request to the key's shield (concurrent misses in one isolate share it),
a hit none; the health object adds at most one exchange a second per shield isolate, plus one per upstream
failure. Per million queries:

| hit ratio (isolate memory + Cache API) | shield requests | upstream requests, shield on | upstream requests, shield off |
|---|---|---|---|
${[0.9, 0.99, 0.999].map((h) => `| ${(h * 100).toFixed(1)} % | ≤ ${doPerMillion(h).toLocaleString("en")} | 1 per key per TTL | 1 per key per TTL per data center |`).join("\n")}

Turn the shield off (\`CACHE_SHIELD=off\`) when Durable Object requests cost more than the upstream
requests they save: few data centers see the same keys (one region, or one data center per key), or
the nodes are your own and cheap to ask.
`;
  writeReportSection("shield", markdown);
  console.log(markdown);
} finally {
  rmSync(bundle.dir, { recursive: true, force: true });
}

/**
 * Node choice measured against fake nodes (`npm run bench:nodes`), loopback only, about 2.5 minutes (twice that
 * with a baseline). The Worker as `wrangler deploy` builds it runs in bare workerd (the bench:workerd rig) with
 * two fake LCD nodes as UPSTREAM_URLS (bench/lib/fake-nodes.ts) and the shield tier off, so the isolate chooses.
 * Every request is a real miss (a fresh address each time). Six scenarios, each in a fresh workerd process:
 *
 * - slow first: node-1 answers in 400 ms, node-2 in 20 ms; 40 misses one after another; shares after the 20th;
 * - hang a third: node-1 hangs on every third request; 30 misses, 3 at a time;
 * - hang a third, 30 s: the same for 30 s, three lanes each pausing 100 ms between misses (the steady state, with
 *   node-1 measured again every 10 s);
 * - 429: node-1's first request is answered 429 `Retry-After: 10`; a miss every 100 ms for 20 s;
 * - hang: node-1 hangs on everything for 6 s; a miss every 100 ms for 16 s;
 * - lag: node-1 is 50 blocks behind for 8 s; a miss every 100 ms for 18 s.
 *
 * It reports per scenario: the share of the nodes' requests each node got, miss p50/p99, upstream requests per
 * miss, and when node-1 left (its last request before a second without any, from the fault's start) and rejoined
 * (its first request after that gap, from the fault's end). `BENCH_BASELINE=<git ref>` runs the Worker as built
 * at that commit beside it in the same process and the same scenarios: before/after in one run.
 * `BENCH_SCENARIO=<words>` runs only the scenarios named so; `BENCH_WATCH_S=<s>` watches each timed one that
 * long after its fault ends (either: nothing written). Writes docs/PERFORMANCE.md (section "nodes").
 */
import { toBech32 } from "@cosmjs/encoding";
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { loadavg } from "node:os";
import { basename } from "node:path";
import { buildWorker, type WorkerBundle } from "../scripts/build-worker.ts";
import { type FakeNode, type FakeNodes, startFakeNodes } from "./lib/fake-nodes.ts";
import { writeReportSection } from "./lib/report.ts";
import { machine, summarize } from "./lib/stats.ts";
import { wranglerWorkerd } from "./lib/workerd-binary.ts";
import { buildBaseline } from "./lib/workerd-baseline.ts";
import { BASELINE_SOCKET, SOCKETS, writeWorkerdConfig } from "./lib/workerd-config.ts";
import { startWorkerd, type WorkerdProcess } from "./lib/workerd-process.ts";
import { readWorkerSettings } from "./lib/wrangler-settings.ts";

const BASELINE = process.env.BENCH_BASELINE;
/** Past this the run is abandoned (everything started is still stopped). */
const DEADLINE_MS = BASELINE ? 540_000 : 300_000;
/** A node not asked for this long has left the rotation. */
const GAP_MS = 1_000;
/** `BENCH_WATCH_S=<s>`: each timed scenario runs on this long after its fault ends (to see a slow rejoin). */
const WATCH_MS = Number(process.env.BENCH_WATCH_S ?? 0) * 1000;
/** `BENCH_SCENARIO=<words>`: only the scenarios whose name contains them. */
const ONLY = process.env.BENCH_SCENARIO;

interface Miss {
  ms: number;
  status: number;
  upstream: string | null;
}

interface Outcome {
  misses: Miss[];
  /** Requests each node received in the measured part. */
  asked: number[];
  leaveMs: number | null | "never";
  rejoinMs: number | null;
}

interface Scenario {
  name: string;
  run(edge: string, nodes: FakeNode[]): Promise<Outcome>;
}

let prefix = "";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function miss(edge: string): Promise<Miss> {
  const address = toBech32(prefix, randomBytes(20));
  const started = performance.now();
  const response = await fetch(`${edge}/api/cosmos/bank/v1beta1/balances/${address}`);
  await response.arrayBuffer();
  return {
    ms: performance.now() - started,
    status: response.status,
    upstream: response.headers.get("x-edge-upstream"),
  };
}

/** `count` misses, `parallel` at a time; `from`: the first miss whose nodes' requests are counted. */
async function counted(edge: string, nodes: FakeNode[], count: number, parallel: number, from = 0): Promise<Outcome> {
  const misses: Miss[] = [];
  let next = 0;
  let countFrom = 0;
  const baseline = nodes.map(() => 0);
  const lane = async () => {
    while (next < count) {
      const i = next++;
      if (i === from) {
        countFrom = Date.now();
        nodes.forEach((node, n) => (baseline[n] = node.asked.length));
      }
      misses.push(await miss(edge));
    }
  };
  await Promise.all(Array.from({ length: parallel }, lane));
  const measured = misses.slice(from);
  return {
    misses: measured,
    asked: nodes.map((node) => node.asked.filter((at) => at >= countFrom).length),
    leaveMs: null,
    rejoinMs: null,
  };
}

/** `lanes` lanes for `durationMs`, each sending a miss and pausing 100 ms. */
async function sustained(edge: string, nodes: FakeNode[], durationMs: number, lanes: number): Promise<Outcome> {
  const started = Date.now();
  const misses: Miss[] = [];
  const lane = async () => {
    while (Date.now() - started < durationMs) {
      misses.push(await miss(edge));
      await sleep(100);
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  return {
    misses,
    asked: nodes.map((n) => n.asked.filter((at) => at >= started).length),
    leaveMs: null,
    rejoinMs: null,
  };
}

/** A miss every 100 ms for `durationMs`; `fault` starts at 2 s and ends `faultMs` later. */
async function timeline(
  edge: string,
  nodes: FakeNode[],
  durationMs: number,
  fault: () => void,
  faultMs: number,
  clear: () => void,
): Promise<Outcome> {
  if (WATCH_MS > 0) durationMs = 2_000 + faultMs + WATCH_MS;
  const started = Date.now();
  const pending: Promise<Miss>[] = [];
  let faultAt = 0;
  for (let at = 0; at < durationMs; at += 100) {
    const wait = started + at - Date.now();
    if (wait > 0) await sleep(wait);
    if (faultAt === 0 && at >= 2_000) {
      faultAt = Date.now();
      fault();
    }
    if (faultAt !== 0 && Date.now() >= faultAt + faultMs) clear();
    pending.push(miss(edge));
  }
  const misses = await Promise.all(pending);
  const node = nodes[0]!;
  const after = node.asked.filter((at) => at >= faultAt);
  let leaveMs: number | null | "never" = "never";
  let rejoinMs: number | null = null;
  for (let i = 0; i < after.length; i++) {
    const following = after[i + 1] ?? Date.now();
    if (following - after[i]! >= GAP_MS) {
      leaveMs = after[i]! - faultAt;
      rejoinMs = after[i + 1] === undefined ? null : after[i + 1]! - (faultAt + faultMs);
      break;
    }
  }
  return { misses, asked: nodes.map((n) => n.asked.filter((at) => at >= started).length), leaveMs, rejoinMs };
}

/** A scenario on the `timeline`: both nodes quiet, then node-1's `fault` for `faultMs`, then `clear`. */
function timedFault(
  name: string,
  durationMs: number,
  faultMs: number,
  fault: (behaviour: FakeNode["behaviour"]) => void,
  clear: (behaviour: FakeNode["behaviour"]) => void = () => {},
): Scenario {
  return {
    name,
    run: (edge, nodes) => {
      for (const node of nodes) node.reset({});
      const node = nodes[0]!;
      return timeline(
        edge,
        nodes,
        durationMs,
        () => fault(node.behaviour),
        faultMs,
        () => clear(node.behaviour),
      );
    },
  };
}

const SCENARIOS: Scenario[] = [
  {
    name: "slow first (400 ms, 20 ms)",
    run: (edge, nodes) => {
      nodes[0]!.reset({ latencyMs: 400 });
      nodes[1]!.reset({ latencyMs: 20 });
      return counted(edge, nodes, 40, 1, 20);
    },
  },
  {
    name: "node-1 hangs on a third",
    run: (edge, nodes) => {
      nodes[0]!.reset({ hangEvery: 3 });
      nodes[1]!.reset({});
      return counted(edge, nodes, 30, 3);
    },
  },
  {
    name: "node-1 hangs on a third, 30 s",
    run: (edge, nodes) => {
      nodes[0]!.reset({ hangEvery: 3 });
      nodes[1]!.reset({});
      return sustained(edge, nodes, 30_000, 3);
    },
  },
  timedFault("node-1: 429, Retry-After 10", 20_000, 10_000, (b) => (b.tooManyOnce = 10)),
  timedFault(
    "node-1 hangs for 6 s",
    16_000,
    6_000,
    (b) => (b.hangUntil = Date.now() + 6_000),
    (b) => (b.hangUntil = 0),
  ),
  timedFault(
    "node-1 50 blocks behind for 8 s",
    18_000,
    8_000,
    (b) => (b.lag = 50),
    (b) => (b.lag = 0),
  ),
];

let bundle: WorkerBundle | undefined;
let fakes: FakeNodes | undefined;
let workerd: WorkerdProcess | undefined;
const stopAll = async () => {
  await workerd?.stop();
  await fakes?.close();
  if (bundle) rmSync(bundle.dir, { recursive: true, force: true });
};
const watchdog = setTimeout(() => {
  console.error(`bench:nodes: over ${DEADLINE_MS / 1000} s, stopping`);
  void stopAll().finally(() => process.exit(1));
}, DEADLINE_MS);
watchdog.unref();
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => void stopAll().finally(() => process.exit(130)));

const ms = (v: number | null | "never") =>
  v === "never" ? "never left" : v === null ? "not in the run" : `${(v / 1000).toFixed(1)} s`;

function row(scenario: string, worker: string, outcome: Outcome): string {
  const latencies = summarize(outcome.misses.map((m) => m.ms));
  const total = outcome.asked.reduce((a, b) => a + b, 0);
  const shares = outcome.asked.map((n) => `${total ? Math.round((100 * n) / total) : 0} %`).join(" / ");
  const perMiss = (total / outcome.misses.length).toFixed(2);
  const failed = outcome.misses.filter((m) => m.status !== 200).length;
  const named = outcome.misses.filter((m) => m.upstream !== null).length;
  return `| ${scenario} | ${worker} | ${outcome.misses.length} (${failed}) | ${shares} | ${latencies.p50.toFixed(0)} ms | ${latencies.p99.toFixed(0)} ms | ${perMiss} | ${ms(outcome.leaveMs)} | ${ms(outcome.rejoinMs)} | ${named} |`;
}

/** This tree's figures over the baseline's, taken in the same run. */
function ratioRow(scenario: string, mine: Outcome, base: Outcome): string {
  const [a, b] = [mine, base].map((o) => summarize(o.misses.map((m) => m.ms)));
  const perMiss = (o: Outcome) => o.asked.reduce((x, y) => x + y, 0) / o.misses.length;
  const ratio = (x: number, y: number) => `${(x / y).toFixed(2)}×`;
  return `| ${scenario} | ${ratio(a!.p50, b!.p50)} | ${ratio(a!.p99, b!.p99)} | ${ratio(perMiss(mine), perMiss(base))} |`;
}

try {
  const settings = readWorkerSettings();
  bundle = buildWorker();
  fakes = await startFakeNodes(["node-1", "node-2"]);
  const baseline = BASELINE ? { ref: BASELINE, commit: buildBaseline(BASELINE, bundle.dir, "baseline.js") } : null;
  const configPath = writeWorkerdConfig(
    bundle.dir,
    basename(bundle.mainPath),
    settings,
    { UPSTREAM_URLS: fakes.nodes.map((n) => n.url).join(","), CACHE_SHIELD: "off", RATE_LIMITS: "off" },
    baseline ? "baseline.js" : undefined,
  );
  const binary = wranglerWorkerd();
  const sockets = baseline ? [...SOCKETS, BASELINE_SOCKET] : SOCKETS;
  const loadAverage = loadavg()[0]!.toFixed(1);
  const rows: string[] = [];
  const ratios: string[] = [];
  for (const scenario of SCENARIOS.filter((s) => !ONLY || s.name.includes(ONLY))) {
    // A fresh process per scenario: each isolate starts knowing nothing of the nodes.
    workerd = await startWorkerd(binary.path, configPath, sockets);
    const targets: [string, string][] = [
      ...(baseline ? [[`as at ${baseline.commit}`, workerd.urls[BASELINE_SOCKET]!] as [string, string]] : []),
      ["this tree", workerd.urls.edge!],
    ];
    const outcomes: Outcome[] = [];
    for (const [label, edge] of targets) {
      if (!prefix)
        prefix = ((await (await fetch(`${edge}/api/config`)).json()) as { bech32_prefix: string }).bech32_prefix;
      const outcome = await scenario.run(edge, fakes.nodes);
      outcomes.push(outcome);
      rows.push(row(scenario.name, label, outcome));
      console.log(rows.at(-1));
    }
    if (outcomes.length === 2) ratios.push(ratioRow(scenario.name, outcomes[1]!, outcomes[0]!));
    await workerd.stop();
    workerd = undefined;
  }
  const markdown = `
## Node choice

\`npm run bench:nodes\` — one run on ${machine()} (load average ${loadAverage} at the start), workerd ${binary.version}
running the deploy bundle with two fake LCD nodes on loopback (bench/lib/fake-nodes.ts) as \`UPSTREAM_URLS\`, node-1
listed first, the shield tier off (the isolate chooses), \`UPSTREAM_TIMEOUT_MS\` as deployed (4 s). Every request is a
miss (a fresh address). Each scenario starts a fresh workerd process.${
    baseline
      ? ` The Worker as at ${baseline.commit} (\`BENCH_BASELINE=${baseline.ref}\`) ran in the same process, each
scenario against it first.`
      : ""
  }

| scenario | Worker | misses (not 200) | node-1 / node-2 share of node requests | miss p50 | miss p99 | upstream requests per miss | node-1 left after | node-1 rejoined after | misses naming their node |
|---|---|---|---|---|---|---|---|---|---|
${rows.join("\n")}
${
  baseline
    ? `
| scenario | miss p50, this tree ÷ as at ${baseline.commit} | miss p99 | upstream requests per miss |
|---|---|---|---|
${ratios.join("\n")}
`
    : ""
}
Shares count the requests each node received (a hedge or a failover asks both), for "slow first" from the 21st
miss on. "Left after" is from the fault's start to node-1's last request before a second with none; "rejoined
after" from the fault's end (the 429's 10 s, the hang's 6 s, the lag's 8 s) to its next request: negative means it
was asked again before the fault ended. The machine is shared and noisy: compare rows within one run.
`;
  // A filtered or longer-watched run is a look, not the report's figures.
  if (!ONLY && WATCH_MS === 0) writeReportSection("nodes", markdown);
  console.log(markdown);
} finally {
  clearTimeout(watchdog);
  await stopAll();
}

/**
 * The hot path measured where it runs (`npm run bench:workerd`), loopback only, about 100 s.
 *
 * Builds the Worker as `wrangler deploy` does and runs it in one bare workerd process (wrangler's
 * own binary, no dev proxy) beside a constant-answer Worker, with the devnet as upstream. Loads
 * the floor, `/api/config`, a gateway hit on a hot key (REST) and an RPC `abci_query` hit (a
 * JSON-RPC POST as CosmJS sends it; the cache key never holds the id, so one body stands for
 * every id) with the same autocannon settings, in alternating rounds, and reports the workerd process's CPU time per request (from /proc) with
 * req/s and p50/p99; medians over the rounds. Writes docs/PERFORMANCE.md (section "workerd").
 *
 * `BENCH_BASELINE=<git ref>` also runs the Worker as built at that commit in the same process and
 * loads its hit in the same rounds: a before/after ratio taken under the same conditions.
 */
import { rmSync } from "node:fs";
import { loadavg } from "node:os";
import { basename } from "node:path";
import { startDevnet, type Devnet } from "../devnet/server.ts";
import { buildWorker, type WorkerBundle } from "../scripts/build-worker.ts";
import { writeReportSection } from "./lib/report.ts";
import { machine } from "./lib/stats.ts";
import { wranglerWorkerd } from "./lib/workerd-binary.ts";
import { buildBaseline } from "./lib/workerd-baseline.ts";
import { BASELINE_SOCKET, SOCKETS, writeWorkerdConfig } from "./lib/workerd-config.ts";
import { alternatingRounds, CONNECTIONS, header, roundRatios, summarizeRuns, type Target } from "./lib/workerd-load.ts";
import { startWorkerd, type WorkerdProcess } from "./lib/workerd-process.ts";
import { readWorkerSettings } from "./lib/wrangler-settings.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const BASELINE = process.env.BENCH_BASELINE;
/** Past this the run is abandoned (everything started is still stopped). */
const DEADLINE_MS = BASELINE ? 300_000 : 210_000;

/** The cache backend answers the way workerd expects: a put is matched with its headers and body, a delete removes it. */
async function checkCacheBackend(url: string): Promise<void> {
  const report = await (await fetch(url)).json();
  const expected = { seen: { status: 200, kept: "yes", body: "stored body" }, deleted: true, goneAfterDelete: true };
  if (JSON.stringify(report) !== JSON.stringify(expected))
    throw new Error(`cache backend misbehaves: ${JSON.stringify(report)}`);
}

/**
 * The JSON-RPC body of CosmJS's `bank.denomsMetadata()`, as its HttpClient sends it: bank's
 * DenomsMetadata (its row is fresh for 300 s, as the REST hit's is, so no round sees it expire).
 */
function rpcHitBody(): string {
  const params = { path: "/cosmos.bank.v1beta1.Query/DenomsMetadata", data: "", prove: false };
  return JSON.stringify({ jsonrpc: "2.0", id: 827_361_552_017, method: "abci_query", params });
}

let bundle: WorkerBundle | undefined;
let devnet: Devnet | undefined;
let workerd: WorkerdProcess | undefined;
const stopAll = async () => {
  await workerd?.stop();
  await devnet?.close();
  if (bundle) rmSync(bundle.dir, { recursive: true, force: true });
};
const watchdog = setTimeout(() => {
  console.error(`bench:workerd: over ${DEADLINE_MS / 1000} s, stopping`);
  void stopAll().finally(() => process.exit(1));
}, DEADLINE_MS);
watchdog.unref();
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => void stopAll().finally(() => process.exit(130)));

try {
  const settings = readWorkerSettings();
  bundle = buildWorker();
  devnet = await startDevnet({ port: 0 });
  const baseline = BASELINE ? { ref: BASELINE, commit: buildBaseline(BASELINE, bundle.dir, "baseline.js") } : null;
  // No rate-limit binding exists in bare workerd.
  const configPath = writeWorkerdConfig(
    bundle.dir,
    basename(bundle.mainPath),
    settings,
    { UPSTREAM_URLS: devnet.url, RPC_UPSTREAM_URLS: `${devnet.url}/rpc`, RATE_LIMITS: "off" },
    baseline ? "baseline.js" : undefined,
  );

  const binary = wranglerWorkerd();
  workerd = await startWorkerd(binary.path, configPath, baseline ? [...SOCKETS, BASELINE_SOCKET] : SOCKETS);
  const edge = workerd.urls.edge!;
  await checkCacheBackend(workerd.urls["cache-check"]!);

  const { namespace } = (await (await fetch(`${edge}/api/config`)).json()) as { namespace: string };
  const hitPath = `/api/${namespace}/incentives/v1/params`;
  const hitUrls = [edge, ...(baseline ? [workerd.urls[BASELINE_SOCKET]!] : [])].map((origin) => `${origin}${hitPath}`);
  for (const url of hitUrls) {
    for (let i = 0; i < 2; i++) await (await fetch(url)).arrayBuffer();
    const check = await fetch(url);
    await check.arrayBuffer();
    if (check.status !== 200 || check.headers.get("x-cache") !== "HIT")
      throw new Error(`expected a 200 cache hit at ${url}, got ${check.status} ${check.headers.get("x-cache")}`);
  }

  const rpcBody = rpcHitBody();
  for (let i = 0; i < 3; i++) {
    const check = await fetch(`${edge}/rpc`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: rpcBody,
    });
    const text = await check.text();
    if (i === 2 && (check.status !== 200 || check.headers.get("x-cache") !== "HIT" || !text.includes('"code":0')))
      throw new Error(
        `expected an RPC cache hit, got ${check.status} ${check.headers.get("x-cache")} ${text.slice(0, 200)}`,
      );
  }

  const ok = (status: number) => status === 200;
  const hit = (status: number, headers: Parameters<Target["expected"]>[1]) =>
    ok(status) && header(headers, "x-cache") === "HIT";
  const targets: Target[] = [
    { label: "floor: constant answer, no code of ours", url: `${workerd.urls.floor}/`, expected: ok },
    { label: "`/api/config`", url: `${edge}/api/config`, expected: ok },
    { label: `\`${hitPath}\` (gateway hit)`, url: hitUrls[0]!, expected: hit },
    { label: "`POST /rpc` `abci_query` DenomsMetadata (RPC hit)", url: `${edge}/rpc`, expected: hit, body: rpcBody },
    ...(baseline ? [{ label: `the same hit, Worker as at ${baseline.commit}`, url: hitUrls[1]!, expected: hit }] : []),
  ];
  // Last, so the rows above keep their indices: the same constant answer to the RPC hit's POST, its body read.
  const postFloor = targets.length;
  targets.push({
    label: "POST floor: the RPC hit's body read, constant answer",
    url: `${workerd.urls["floor-post"]}/`,
    expected: ok,
    body: rpcBody,
  });
  // Other work on the machine inflates every figure; the ratios within rounds hold up better.
  const loadAverage = loadavg()[0]!.toFixed(1);
  const runs = await alternatingRounds(workerd.pid, targets, ROUNDS, SECONDS);
  const rows = runs.map(summarizeRuns);
  const ratioRow = (label: string, i: number, base = 0) => {
    const ratio = roundRatios(runs[i]!, runs[base]!);
    return `| ${label} | ${ratio.cpuMedian.toFixed(2)}× | ${ratio.cpu.map((v) => v.toFixed(2)).join(" / ")} | ${ratio.rpsMedian.toFixed(2)}× | | | |`;
  };
  const micros = (v: number) => `${v.toFixed(0)} µs`;
  // autocannon keeps whole milliseconds.
  const ms = (v: number) => (v < 1 ? "<1 ms" : `${v.toFixed(0)} ms`);
  const markdown = `
## Bare workerd

\`npm run bench:workerd\` — one run on ${machine()} (load average ${loadAverage} at the start), workerd ${binary.version} running the
deploy bundle with no dev proxy; autocannon (same machine, ${CONNECTIONS} connections) loads each route for
${SECONDS} s, ${ROUNDS} alternating rounds, medians shown. CPU is the workerd process's own user+system
time (/proc) over the requests it answered, so the load tool's cost is not in it; ratios are taken
within each round, then the median.

| route | CPU per request | each round | requests/s | p50 | p99 | requests (unexpected answers) |
|---|---|---|---|---|---|---|
${targets.map((t, i) => `| ${t.label} | ${micros(rows[i]!.cpu)} | ${rows[i]!.rounds} | ${rows[i]!.rps.toFixed(0)} | ${ms(rows[i]!.p50)} | ${ms(rows[i]!.p99)} | ${rows[i]!.requests} (${rows[i]!.unexpected}) |`).join("\n")}
${ratioRow("gateway hit ÷ floor", 2)}
${ratioRow("RPC hit ÷ floor", 3)}
${ratioRow("\`/api/config\` ÷ floor", 1)}
${ratioRow("RPC hit ÷ gateway hit", 3, 2)}
${ratioRow("POST floor ÷ floor", postFloor)}
${ratioRow("RPC hit ÷ POST floor", 3, postFloor)}${baseline ? `\n${ratioRow(`hit as at ${baseline.commit} ÷ floor`, 4)}\n${ratioRow(`gateway hit ÷ hit as at ${baseline.commit}`, 2, 4)}` : ""}

An unexpected answer is anything but a 200 (for the hits: a 200 with \`x-cache: HIT\`). The RPC hit is one
JSON-RPC call as CosmJS's \`QueryClient\` sends \`bank.denomsMetadata()\` (POST: its body read, its id
found, the rest of it looked up among bodies already checked, the caller's id put around the kept answer). The edge
routes include the JSON access-log line the Worker prints per request (workerd's stdout, discarded).${
    baseline
      ? `
The Worker as at ${baseline.commit} (\`BENCH_BASELINE=${baseline.ref}\`) was built the same way and ran in the same process,
its hit loaded in the same rounds.`
      : ""
  }
`;
  const unexpected = rows.reduce((n, r) => n + r.unexpected, 0);
  if (unexpected > 0) throw new Error(`${unexpected} unexpected answers under load; figures not written\n${markdown}`);
  writeReportSection("workerd", markdown);
  console.log(markdown);
} finally {
  clearTimeout(watchdog);
  await stopAll();
}

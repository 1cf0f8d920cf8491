/**
 * Live face benchmark (`npm run bench:live [-- --sizes 1000,10000] [-- --heights 5]`), loopback
 * only, stopping by itself. One devnet (a block every second) is the network's CometBFT node; the
 * edge is the deploy bundle in one bare workerd process (the `bench:workerd` rig: no dev proxy).
 * For each size N, N raw WebSocket subscribers to `tm.event='NewBlock'` connect to the edge's
 * `/rpc/websocket` (each with its own `cf-connecting-ip`, a header only, so the door spreads them
 * as it spreads distinct clients), then `--heights` heights are timed:
 * - fan-out latency from the node's send of a `NewBlock` (the devnet records it) to each
 *   subscriber's receipt, p50 and p99;
 * - the workerd process's CPU time over the timed heights, per height and per height per joined shard;
 * - the workerd process's resident memory per subscriber (its growth over the size's run, divided by N);
 * - the node's subscriptions (one, whatever N).
 * The default sizes (1,000 and 8,000) write docs/PERFORMANCE.md (section "live"). 10,000 is not among
 * them: workerd holds about two descriptors per socket, and past about 9,000 sockets this machine's hard
 * limit of 20,000 open files ends the process (watched in /proc: 18,124 descriptors at 9,000 sockets,
 * then workerd gone); `--sizes 1000,10000` asks for it where the limit allows.
 */
import { readFileSync, rmSync } from "node:fs";
import { basename } from "node:path";
import { parseArgs } from "node:util";
import WebSocket from "ws";
import { type Devnet, startDevnet } from "../devnet/server.ts";
import { buildWorker, type WorkerBundle } from "../scripts/build-worker.ts";
import { processCpuMicros } from "./lib/process-cpu.ts";
import { writeReportSection } from "./lib/report.ts";
import { machine, summarize } from "./lib/stats.ts";
import { wranglerWorkerd } from "./lib/workerd-binary.ts";
import { SOCKETS, writeWorkerdConfig } from "./lib/workerd-config.ts";
import { startWorkerd, type WorkerdProcess } from "./lib/workerd-process.ts";
import { readWorkerSettings } from "./lib/wrangler-settings.ts";

const DEFAULT_SIZES = [1000, 8000];
const { values: flags } = parseArgs({ options: { sizes: { type: "string" }, heights: { type: "string" } } });
const sizes = flags.sizes ? flags.sizes.split(",").map(Number) : DEFAULT_SIZES;
const heights = Number(flags.heights ?? 5);
/** Sockets opened side by side while a size is being built. */
const OPENING = 250;
/** Past this the run is abandoned (everything started is still stopped). */
const DEADLINE_MS = 15 * 60_000;

interface Run {
  served: number;
  refused: number;
  latencies: number[];
  /** workerd's CPU over the timed heights, µs, and how many heights that window held. */
  cpuMicros: number;
  timedHeights: number;
  kbGrown: number;
  nodeSubscriptions: number;
  sockets: WebSocket[];
}

const SUBSCRIBE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "subscribe",
  params: { query: "tm.event='NewBlock'" },
});

/** A distinct client address per subscriber, as a header only (nothing is ever sent to it). */
const clientIp = (i: number) => `127.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

function rssKb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/);
  return Number(line?.[1] ?? 0);
}

const headOf = async (node: Devnet) =>
  ((await (await fetch(`${node.url}/__devnet/status`)).json()) as { height: number }).height;

async function waitForHeight(node: Devnet, height: number): Promise<void> {
  while ((await headOf(node)) < height) await new Promise((r) => setTimeout(r, 50));
}

/** Opens `n` subscribers at `url`, times `heights` heights after all are in; the sockets stay open. */
async function run(node: Devnet, workerd: WorkerdProcess, url: string, n: number, offset: number): Promise<Run> {
  const sockets: WebSocket[] = [];
  const latencies: number[] = [];
  let served = 0;
  let refused = 0;
  let from = Infinity;
  let to = Infinity;
  const before = rssKb(workerd.pid);
  for (let opened = 0; opened < n; opened += OPENING) {
    await Promise.all(
      Array.from({ length: Math.min(OPENING, n - opened) }, async (_, j) => {
        const ws = new WebSocket(url, { headers: { "cf-connecting-ip": clientIp(offset + opened + j) } });
        sockets.push(ws);
        ws.on("error", () => undefined);
        ws.on("message", (data) => {
          const text = String(data);
          const at = text.indexOf('"height":"');
          if (at === -1) return;
          const height = Number(text.slice(at + 10, text.indexOf('"', at + 10)));
          if (height >= from && height <= to) latencies.push(Date.now() - node.websocket.sentAt(height)!);
        });
        // A socket that neither opens nor fails within 10 s counts as refused: the run never hangs on one.
        await new Promise((resolve) => {
          ws.once("open", resolve).once("error", resolve).once("unexpected-response", resolve);
          setTimeout(resolve, 10_000);
        });
        if (ws.readyState !== WebSocket.OPEN) return void refused++;
        const answer = new Promise<Record<string, unknown>>((resolve) =>
          ws.once("message", (d) => resolve(JSON.parse(String(d)))),
        );
        ws.send(SUBSCRIBE);
        const answered = await Promise.race([answer, new Promise<null>((r) => setTimeout(() => r(null), 10_000))]);
        if (answered === null || "error" in answered) refused++;
        else served++;
      }),
    );
  }
  // Settle: the joins reach the feed, and one height goes out to everyone before the window opens.
  await waitForHeight(node, (await headOf(node)) + 2);
  const start = await headOf(node);
  from = start + 1;
  to = start + heights;
  const cpuBefore = processCpuMicros(workerd.pid);
  await waitForHeight(node, to);
  // The last height's fan-out: wait until every served socket has it, or 30 s.
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline && latencies.length < served * heights) await new Promise((r) => setTimeout(r, 20));
  const cpuMicros = processCpuMicros(workerd.pid) - cpuBefore;
  const feed = (await (await fetch(`${node.url}/__devnet/websocket`)).json()) as { subscriptions: number };
  return {
    served,
    refused,
    latencies,
    cpuMicros,
    timedHeights: heights,
    kbGrown: rssKb(workerd.pid) - before,
    nodeSubscriptions: feed.subscriptions,
    sockets,
  };
}

let bundle: WorkerBundle | undefined;
let devnet: Devnet | undefined;
let workerd: WorkerdProcess | undefined;
const open: WebSocket[] = [];
const stopAll = async () => {
  for (const ws of open) ws.terminate();
  await workerd?.stop();
  await devnet?.close();
  if (bundle) rmSync(bundle.dir, { recursive: true, force: true });
};
const watchdog = setTimeout(() => {
  console.error(`bench:live: over ${DEADLINE_MS / 1000} s, stopping`);
  void stopAll().finally(() => process.exit(1));
}, DEADLINE_MS);
watchdog.unref();
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => void stopAll().finally(() => process.exit(130)));

const rows: string[] = [];
let shardsNote = "";
try {
  const settings = readWorkerSettings();
  bundle = buildWorker();
  devnet = await startDevnet({ port: 0, blockMs: 1000 });
  // No rate-limit binding exists in bare workerd; the per-IP socket cap is off with the limits.
  const configPath = writeWorkerdConfig(bundle.dir, basename(bundle.mainPath), settings, {
    UPSTREAM_URLS: devnet.url,
    RPC_UPSTREAM_URLS: `${devnet.url}/rpc`,
    RATE_LIMITS: "off",
  });
  const binary = wranglerWorkerd();
  workerd = await startWorkerd(binary.path, configPath, SOCKETS);
  const url = `${workerd.urls.edge!.replace(/^http/, "ws")}/rpc/websocket`;
  const idleKb = rssKb(workerd.pid);
  let offset = 0;
  for (const n of sizes) {
    const measured = await run(devnet, workerd, url, n, offset);
    offset += n;
    const e = summarize(measured.latencies);
    const perHeightMs = measured.cpuMicros / measured.timedHeights / 1000;
    const row =
      `| ${n.toLocaleString("en-US")} | ${measured.served} (${measured.refused} refused) | ${measured.nodeSubscriptions} | ` +
      `${e.n} of ${measured.served * heights} | ${e.p50} | ${e.p99} | ${perHeightMs.toFixed(1)} | ` +
      `${(perHeightMs / 16).toFixed(2)} | ${((perHeightMs * 1000) / Math.max(1, measured.served)).toFixed(1)} | ` +
      `${(measured.kbGrown / Math.max(1, n)).toFixed(1)} |`;
    console.log(row);
    rows.push(row);
    for (const ws of measured.sockets) ws.terminate();
    await new Promise((r) => setTimeout(r, 2_000));
  }
  shardsNote = `workerd's resident set was ${(idleKb / 1024).toFixed(0)} MiB before the first size.`;
  const report = `
Measured by \`npm run bench:live\` (${machine()}; workerd ${binary.version}, bare, running the deploy bundle; one
devnet with 1 s blocks as the node; every subscriber a raw WebSocket in one Node process on the same machine,
${heights} heights timed per size). Latency is from the node's send of a \`NewBlock\` to a subscriber's receipt,
in ms. CPU is the workerd process's user+system time over the timed heights (the feed, all 16 shards and the
sockets' I/O), per height; "per shard" divides it by the 16 shards, "per subscriber" by the subscribers.
Memory is the growth of workerd's resident set while the size's sockets opened and subscribed, divided by
them (bare workerd keeps every object in memory: this is the in-memory cost of a subscriber, not a
hibernated one). ${shardsNote}

| subscribers | subscribed | node subscriptions | deliveries timed | p50 ms | p99 ms | CPU per height, ms | per shard, ms | per subscriber, µs | KiB per subscriber |
|---|---|---|---|---|---|---|---|---|---|
${rows.join("\n")}
`;
  if (!flags.sizes) writeReportSection("live", report);
  console.log(report);
} finally {
  clearTimeout(watchdog);
  await stopAll();
}

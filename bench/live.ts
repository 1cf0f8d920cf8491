/**
 * Live face benchmark (`npm run bench:live [-- --sizes 10,1000,10000] [-- --heights 5]`), loopback
 * only, stopping by itself. One devnet (a block every second) is the network's CometBFT node and
 * `wrangler dev` the edge. For each size N, N raw WebSocket subscribers to `tm.event='NewBlock'`
 * connect to the edge's `/rpc/websocket`, then `--heights` heights are timed: fan-out latency from
 * the node's send of a `NewBlock` (the devnet records it) to each subscriber's receipt, p50 and
 * p99; the node's subscriptions; the workerd process's resident memory per subscriber (its growth
 * over the run, divided by N). The same N then subscribe to the devnet's own `/rpc/websocket`,
 * capped at 100 clients as a node is: how many it serves, and their latency.
 * A run with the default sizes (10 and 1,000) writes docs/PERFORMANCE.md (section "live").
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import WebSocket from "ws";
import { type Devnet, startDevnet } from "../devnet/server.ts";
import { startWranglerDev } from "../test/e2e/helpers/wrangler-dev.ts";
import { writeReportSection } from "./lib/report.ts";
import { machine, summarize } from "./lib/stats.ts";

/**
 * 10,000 is opt-in (`--sizes 10,1000,10000`): on the 2 shared cores this was built on, one Node process
 * opening 10,000 sockets through `wrangler dev`'s proxy did not finish; the default run stays under 2 minutes.
 */
const DEFAULT_SIZES = [10, 1000];
const { values: flags } = parseArgs({ options: { sizes: { type: "string" }, heights: { type: "string" } } });
const sizes = flags.sizes ? flags.sizes.split(",").map(Number) : DEFAULT_SIZES;
const heights = Number(flags.heights ?? 5);

interface Run {
  served: number;
  refused: number;
  latencies: number[];
}

/** Opens `n` subscribers at `url`, times `heights` heights after all are in, closes them. */
async function run(node: Devnet, url: string, n: number): Promise<Run> {
  const sockets: WebSocket[] = [];
  const latencies: number[] = [];
  let served = 0;
  let refused = 0;
  let from = Infinity;
  const subscribe = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "subscribe",
    params: { query: "tm.event='NewBlock'" },
  });
  for (let opened = 0; opened < n; opened += 200) {
    await Promise.all(
      Array.from({ length: Math.min(200, n - opened) }, async () => {
        const ws = new WebSocket(url);
        sockets.push(ws);
        ws.on("error", () => undefined);
        ws.on("message", (data) => {
          const frame = JSON.parse(String(data)) as {
            result?: { data?: { value: { block: { header: { height: string } } } } };
            error?: unknown;
          };
          const height = Number(frame.result?.data?.value.block.header.height ?? 0);
          if (height >= from) latencies.push(Date.now() - node.websocket.sentAt(height)!);
        });
        // A socket that neither opens nor fails within 10 s counts as refused: the run never hangs on one.
        await new Promise((resolve) => {
          ws.once("open", resolve).once("error", resolve);
          setTimeout(resolve, 10_000);
        });
        if (ws.readyState !== WebSocket.OPEN) return void refused++;
        const answer = new Promise<Record<string, unknown>>((resolve) =>
          ws.once("message", (d) => resolve(JSON.parse(String(d)))),
        );
        ws.send(subscribe);
        const answered = await Promise.race([answer, new Promise<null>((r) => setTimeout(() => r(null), 10_000))]);
        if (answered === null || "error" in answered) refused++;
        else served++;
      }),
    );
  }
  const status = (await (await fetch(`${node.url}/__devnet/status`)).json()) as { height: number };
  from = status.height + 2;
  const until = Date.now() + (heights + 3) * 1000 + n;
  while (Date.now() < until && latencies.length < served * heights) await new Promise((r) => setTimeout(r, 200));
  for (const ws of sockets) ws.terminate();
  return { served, refused, latencies };
}

function workerdRssKb(): number {
  const pids = execFileSync("pgrep", ["-f", "workerd serve"], { encoding: "utf8" }).trim().split("\n");
  return pids.reduce((kb, pid) => {
    const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/);
    return kb + Number(line?.[1] ?? 0);
  }, 0);
}

const node = await startDevnet({ port: 0, blockMs: 1000 });
const edge = await startWranglerDev({
  UPSTREAM_URLS: node.url,
  RPC_UPSTREAM_URLS: `${node.url}/rpc`,
  RATE_LIMITS: "off",
});
const rows: string[] = [];
try {
  for (const n of sizes) {
    const before = workerdRssKb();
    const edgeRun = run(node, `${edge.url.replace(/^http/, "ws")}/rpc/websocket`, n);
    let peakSubs = 0;
    const watch = setInterval(() => (peakSubs = Math.max(peakSubs, node.websocket.counts().subscriptions)), 100);
    const measured = await edgeRun;
    const grown = workerdRssKb() - before;
    clearInterval(watch);
    const direct = await run(node, `${node.url.replace(/^http/, "ws")}/rpc/websocket`, n);
    const e = summarize(measured.latencies);
    const d = summarize(direct.latencies);
    const row =
      `| ${n.toLocaleString("en-US")} | ${measured.served} | ${peakSubs} | ${e.p50} | ${e.p99} | ` +
      `${((grown * 1024) / Math.max(1, n) / 1024).toFixed(1)} | ${direct.served} (${direct.refused} refused) | ${d.p50} | ${d.p99} |`;
    console.log(row);
    rows.push(row);
  }
} finally {
  await edge.stop();
  await node.close();
}

const report = `
Measured by \`npm run bench:live\` (${machine()}; one devnet with 1 s blocks as the node, \`wrangler dev\` as the
edge, every subscriber a raw WebSocket in one Node process on the same machine, ${heights} heights timed per size).
Latency is from the node's send of a \`NewBlock\` to a subscriber's receipt, in ms. Memory is the growth of the
workerd processes' resident set over the edge run, divided by the subscribers (KiB; local workerd does not
hibernate, so this is the in-memory cost of a socket, an upper bound of a hibernated one).

| subscribers | served by the edge | node subscriptions | edge p50 | edge p99 | KiB per subscriber | served by the node alone | node p50 | node p99 |
|---|---|---|---|---|---|---|---|---|
${rows.join("\n")}
${
  sizes.includes(10_000)
    ? ""
    : `
10,000 subscribers are not in the default run: on the 2 shared cores this was measured on, one Node process
opening 10,000 sockets through \`wrangler dev\`'s proxy did not finish, so the largest size measured here is
1,000 (\`--sizes 10,1000,10000\` asks for 10,000 on a machine that can hold it).
`
}`;
if (!flags.sizes) writeReportSection("live", report);
console.log(report);

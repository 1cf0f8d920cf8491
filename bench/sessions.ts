/**
 * Pairing-session benchmark (run by hand: `npm run bench:sessions`).
 *
 * Starts its own `wrangler dev` (rate limits off) and measures, in one run:
 *  1. create+confirm flows per second under concurrent load (autocannon);
 *  2. the latency from a confirm to a waiting WebSocket receiving the row, beside the latency
 *     the SDK's 1.5 s polling gives for the same confirms.
 * Writes the figures to docs/PERFORMANCE.md (section "sessions").
 */
import { toBech32 } from "@cosmjs/encoding";
import autocannon from "autocannon";
import { randomBytes } from "node:crypto";
import { mintSessionId, pairingFlowRequests } from "./lib/pairing-flow.ts";
import { machine, summarize } from "./lib/stats.ts";
import { writeReportSection } from "./lib/report.ts";
import { startWranglerDev } from "./lib/wrangler-dev.ts";

const PORT = Number(process.env.BENCH_PORT ?? 8788);
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 16;
const PUSH_SAMPLES = 200;
const POLL_SAMPLES = 60;
const POLL_INTERVAL_MS = 1500;

const worker = await startWranglerDev({ port: PORT, vars: { RATE_LIMITS: "off" } });
const base = worker.url;
const settings = (await (await fetch(`${base}/api/config`)).json()) as {
  wallet_path: string;
  chain_id: string;
  bech32_prefix: string;
};
const walletPath = settings.wallet_path;
const sessions = `${base}/api/${walletPath}/sessions`;
const proof = {
  address: toBech32(settings.bech32_prefix, randomBytes(20)),
  pubkey_base64: randomBytes(1952).toString("base64"),
  account_label: "bench",
};
const json = { "content-type": "application/json" };

const body = (id: string) =>
  JSON.stringify({
    v: 1,
    session_id: id,
    chain_id: settings.chain_id,
    origin: { name: "bench", url: base },
    relay_url: `${sessions}/${id}/confirm`,
  });

try {
  // 1. Throughput of whole flows: each connection creates a session, then confirms it.
  const flows = await autocannon({
    url: base,
    connections: CONNECTIONS,
    duration: DURATION_S,
    requests: pairingFlowRequests(`/api/${walletPath}/sessions`, body, proof),
  });
  const requests = flows.requests.total;
  const failures = flows.non2xx + flows.errors + flows.timeouts;

  // 2a. Push: subscribe, then confirm, and time the row's arrival.
  const push: number[] = [];
  for (let i = 0; i < PUSH_SAMPLES; i++) {
    const id = mintSessionId();
    await fetch(sessions, { method: "POST", headers: json, body: body(id) });
    const socket = new WebSocket(`${sessions.replace("http", "ws")}/${id}`);
    let first = true;
    const arrived = new Promise<number>((resolve) =>
      socket.addEventListener("message", () => {
        if (first) first = false;
        else resolve(performance.now());
      }),
    );
    await new Promise((resolve) => socket.addEventListener("message", resolve, { once: true }));
    const sent = performance.now();
    await fetch(`${sessions}/${id}/confirm`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ session_id: id, ...proof }),
    });
    push.push((await arrived) - sent);
    socket.close();
  }

  // 2b. Polling as the SDK does it: every 1.5 s from a random phase; confirms at once.
  const poll = await Promise.all(
    Array.from({ length: POLL_SAMPLES }, async () => {
      const id = mintSessionId();
      await fetch(sessions, { method: "POST", headers: json, body: body(id) });
      await new Promise((resolve) => setTimeout(resolve, Math.random() * POLL_INTERVAL_MS));
      const sent = performance.now();
      const confirmed = fetch(`${sessions}/${id}/confirm`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({ session_id: id, ...proof }),
      });
      let phase = Math.random() * POLL_INTERVAL_MS;
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, phase));
        phase = POLL_INTERVAL_MS;
        const row = (await (await fetch(`${sessions}/${id}`)).json()) as { status: string };
        if (row.status === "connected") break;
      }
      await confirmed;
      return performance.now() - sent;
    }),
  );

  const p = summarize(push);
  const q = summarize(poll);
  const report = `
## Pairing sessions

\`npm run bench:sessions\` — one run on ${machine()}, against \`wrangler dev\` (rate limits off),
${CONNECTIONS} connections for ${DURATION_S} s. Dev-server figures: compare within the run, not across machines.

| measure | figure |
|---|---|
| create + confirm flows per second | ${(requests / 2 / DURATION_S).toFixed(0)} (${requests} requests, ${failures} non-2xx/errors) |
| request latency under that load, p50 / p99 | ${flows.latency.p50} ms / ${flows.latency.p99} ms |
| confirm → waiting WebSocket receives the row, p50 / p99 (n=${p.n}) | ${p.p50.toFixed(1)} ms / ${p.p99.toFixed(1)} ms |
| confirm → SDK-style 1.5 s poller sees it, p50 / p99 (n=${q.n}) | ${q.p50.toFixed(0)} ms / ${q.p99.toFixed(0)} ms |
| push is faster than polling by (p50 ratio) | ${(q.p50 / p.p50).toFixed(0)}× |
`;
  console.log(report);
  writeReportSection("sessions", report);
  if (failures > 0) process.exitCode = 1;
} finally {
  await worker.stop();
}

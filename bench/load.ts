/**
 * Mixed load on the local service for a fixed time (`npm run prove:load`): cached gateway
 * queries across many keys, session creates and confirms, and WebSocket waiters, all at once.
 * Reports throughput, p50/p99, errors (must be zero) and upstream requests per distinct key,
 * and writes them to docs/PERFORMANCE.md (section "load").
 */
import { toBech32 } from "@cosmjs/encoding";
import autocannon from "autocannon";
import { randomBytes } from "node:crypto";
import { mintSessionId, pairingFlowRequests } from "./lib/pairing-flow.ts";
import { startLocalStack } from "./lib/local-stack.ts";
import { writeReportSection } from "./lib/report.ts";
import { machine, summarize } from "./lib/stats.ts";

const DURATION_S = Number(process.env.LOAD_SECONDS ?? 20);
const QUERY_CONNECTIONS = 24;
const SESSION_CONNECTIONS = 4;
const WAITERS = 60;
const ADDRESSES = 150;

/** Runs the load; returns the number of errors seen (0 to pass). */
export async function runLoad(port: number): Promise<number> {
  const stack = await startLocalStack({ port, vars: { RATE_LIMITS: "off" } });
  try {
    const base = stack.worker.url;
    const settings = (await (await fetch(`${base}/api/config`)).json()) as Record<string, string>;
    const ns = settings.namespace!;
    const addresses = Array.from({ length: ADDRESSES }, () => toBech32(settings.bech32_prefix!, randomBytes(20)));
    const queryPaths = [
      ...addresses.map((a) => `/api/cosmos/bank/v1beta1/balances/${a}`),
      ...addresses.slice(0, 30).map((a) => `/api/cosmos/staking/v1beta1/delegations/${a}`),
      `/api/${ns}/incentives/v1/params`,
      `/api/${ns}/incentives/v1/nodes`,
      `/api/${ns}/incentives/v1/network_summary`,
      `/api/${ns}/incentives/v1/estimated_daily_payout`,
      "/api/cosmos/bank/v1beta1/supply",
      "/api/cosmos/staking/v1beta1/validators?status=BOND_STATUS_BONDED",
      "/api/cosmos/staking/v1beta1/pool",
      `/api/${ns}/trustscore/v1/epoch`,
      `/api/${ns}/campaign/v1/campaigns`,
      ...[1, 2, 3].map((id) => `/api/${ns}/campaign/v1/campaign/${id}`),
    ];
    const sessions = `/api/${settings.wallet_path}/sessions`;
    const proof = { address: addresses[0], pubkey_base64: randomBytes(1952).toString("base64") };
    const createBody = (id: string) =>
      JSON.stringify({ v: 1, session_id: id, chain_id: settings.chain_id, origin: { name: "load", url: base } });
    const json = { "content-type": "application/json" };
    await stack.control("POST", "reset");

    const queries = autocannon({
      url: base,
      connections: QUERY_CONNECTIONS,
      duration: DURATION_S,
      requests: [
        {
          method: "GET",
          setupRequest: (request) => ({ ...request, path: queryPaths[Math.floor(Math.random() * queryPaths.length)]! }),
        },
      ],
    });
    const pairing = autocannon({
      url: base,
      connections: SESSION_CONNECTIONS,
      duration: DURATION_S,
      requests: pairingFlowRequests(sessions, createBody, proof),
    });
    const waiters = Promise.all(
      Array.from({ length: WAITERS }, async (_, i) => {
        await new Promise((resolve) => setTimeout(resolve, (i / WAITERS) * (DURATION_S - 3) * 1000));
        const id = mintSessionId();
        const created = await fetch(`${base}${sessions}`, { method: "POST", headers: json, body: createBody(id) });
        if (created.status !== 201) return { ok: false, ms: NaN };
        const socket = new WebSocket(`${base.replace("http", "ws")}${sessions}/${id}`);
        let sent = 0;
        const delivered = new Promise<number>((resolve) =>
          socket.addEventListener("message", (event) => {
            if ((JSON.parse(String(event.data)) as { status: string }).status === "connected")
              resolve(performance.now() - sent);
          }),
        );
        await new Promise((resolve) => socket.addEventListener("message", resolve, { once: true }));
        sent = performance.now();
        const confirmed = await fetch(`${base}${sessions}/${id}/confirm`, {
          method: "POST",
          headers: json,
          body: JSON.stringify({ session_id: id, ...proof }),
        });
        const ms = await Promise.race([
          delivered,
          new Promise<number>((resolve) => setTimeout(() => resolve(NaN), 10_000)),
        ]);
        socket.close();
        return { ok: confirmed.status === 200 && Number.isFinite(ms), ms };
      }),
    );
    const [q, p, w] = await Promise.all([queries, pairing, waiters]);

    const upstream = (await (await stack.control("GET", "requests")).json()) as {
      count: number;
      by_path: Record<string, number>;
    };
    const keys = Object.keys(upstream.by_path).length;
    const wait = summarize(w.filter((x) => x.ok).map((x) => x.ms));
    const waiterFailures = w.filter((x) => !x.ok).length;
    const errors = q.non2xx + q.errors + q.timeouts + p.non2xx + p.errors + p.timeouts + waiterFailures;
    const report = `
## Mixed load

\`npm run prove:load\` — one run on ${machine()}, ${DURATION_S} s against \`wrangler dev\` with the
devnet as the only upstream (rate limits off). All three parts ran at the same time.

| part | throughput | p50 | p99 | errors |
|---|---|---|---|---|
| gateway queries (${queryPaths.length} keys, ${QUERY_CONNECTIONS} connections) | ${q.requests.average.toFixed(0)} req/s | ${q.latency.p50} ms | ${q.latency.p99} ms | ${q.non2xx + q.errors + q.timeouts} |
| session create + confirm (${SESSION_CONNECTIONS} connections) | ${(p.requests.total / 2 / DURATION_S).toFixed(0)} flows/s | ${p.latency.p50} ms | ${p.latency.p99} ms | ${p.non2xx + p.errors + p.timeouts} |
| WebSocket waiters (${WAITERS}): confirm → row pushed | ${w.length - waiterFailures} of ${WAITERS} delivered | ${wait.p50.toFixed(1)} ms | ${wait.p99.toFixed(1)} ms | ${waiterFailures} |

Upstream: ${upstream.count} requests for ${keys} distinct keys (${(upstream.count / Math.max(keys, 1)).toFixed(2)} per key) while
the gateway answered ${q.requests.total} queries: ${((1 - upstream.count / Math.max(q.requests.total, 1)) * 100).toFixed(1)}% never reached a node. Keys with a
5 s TTL are refreshed a few times in ${DURATION_S} s, which is the floor for fresh data.
`;
    console.log(report);
    writeReportSection("load", report);
    return errors;
  } finally {
    await stack.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = (await runLoad(Number(process.env.PROVE_PORT ?? 8793))) > 0 ? 1 : 0;
}

/**
 * The multi-city simulation behind `npm run bench:colos`: a cold herd for the same keys through
 * every data center at once, and a lagging node, with the shield tier on or off. Reports, per key,
 * the upstream requests the nodes received and the heights each data center answered with.
 */
import { toBech32 } from "@cosmjs/encoding";
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { WorkerBundle } from "../../scripts/build-worker.ts";
import { startColoStack, type ColoStack } from "./colo-stack.ts";

export interface ColoOptions {
  colos: number;
  /** Concurrent requests per data center and key. */
  requests: number;
  shield: boolean;
  /** An LCD base URL instead of the devnet. */
  upstream?: string;
  bundle?: WorkerBundle;
}

/** One answer a client got. */
interface Served {
  instance: number;
  status: number;
  cache: string | null;
  height: number | null;
  /** Milliseconds (performance.now) when the request left and when its answer was complete. */
  start: number;
  end: number;
}

/** Blocks the lagging node trails by. */
const LAG_BLOCKS = 50;
/** The lagging-node keys' TTL (balances, delegations) and a second more: the second wave finds them stale. */
const WAVE_GAP_MS = 6_000;

async function ask(stack: ColoStack, instance: number, path: string): Promise<Served> {
  const start = performance.now();
  try {
    const response = await fetch(`${stack.edges[instance]}/api${path}`, { signal: AbortSignal.timeout(60_000) });
    await response.arrayBuffer();
    const height = response.headers.get("x-cosmos-block-height");
    return {
      instance,
      status: response.status,
      cache: response.headers.get("x-cache"),
      height: height === null ? null : Number(height),
      start,
      end: performance.now(),
    };
  } catch {
    return { instance, status: 0, cache: null, height: null, start, end: performance.now() };
  }
}

/** Every instance of `instances` sends `requests` requests for `path`, all at once. */
function herd(stack: ColoStack, instances: readonly number[], requests: number, path: string): Promise<Served[]> {
  return Promise.all(instances.flatMap((i) => Array.from({ length: requests }, () => ask(stack, i, path))));
}

/** Per instance, how many answers it gave at each height ("none" for answers without one). */
function heightsByInstance(served: readonly Served[], colos: number): Record<string, number>[] {
  const byInstance = Array.from({ length: colos }, () => ({}) as Record<string, number>);
  for (const s of served) {
    const key = s.status === 200 ? String(s.height ?? "none") : `status ${s.status}`;
    byInstance[s.instance]![key] = (byInstance[s.instance]![key] ?? 0) + 1;
  }
  return byInstance;
}

/** Answers at a lower height than one some client had already received when they were asked. */
function lowerAfterHigher(served: readonly Served[]): number {
  const done = served.filter((s) => s.status === 200 && s.height !== null).sort((a, b) => a.end - b.end);
  const highestBy: number[] = [];
  for (const [i, s] of done.entries()) highestBy[i] = Math.max(highestBy[i - 1] ?? 0, s.height!);
  let count = 0;
  for (const s of done) {
    // The last answer received before this one was asked for.
    let lo = -1;
    for (let hi = done.length - 1; lo < hi; ) {
      const mid = Math.ceil((lo + hi + 1) / 2);
      if (done[mid]!.end < s.start) lo = mid;
      else hi = mid - 1;
    }
    if (lo >= 0 && s.height! < highestBy[lo]!) count++;
  }
  return count;
}

function tally(values: readonly (string | null)[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const v of values) counts[String(v)] = (counts[String(v)] ?? 0) + 1;
  return counts;
}

async function upstreamRequests(stack: ColoStack, path: string): Promise<[number, number]> {
  return [await stack.upstreams.requests(0, path), await stack.upstreams.requests(1, path)];
}

export async function simulateColos(options: ColoOptions) {
  const started = performance.now();
  const stack = await startColoStack({
    colos: options.colos,
    vars: { CACHE_SHIELD: options.shield ? "on" : "off" },
    upstream: options.upstream,
    bundle: options.bundle,
  });
  try {
    const { namespace, bech32_prefix: prefix } = stack.words;
    const address = () => toBech32(prefix, randomBytes(20));
    const all = Array.from({ length: options.colos }, (_, i) => i);

    // A cold herd: every data center asks for the same key at once.
    const herdKeys = [
      `/${namespace}/incentives/v1/params`,
      "/cosmos/bank/v1beta1/supply",
      `/cosmos/bank/v1beta1/balances/${address()}`,
    ];
    const herdReport: Record<string, object> = {};
    let herdMax = 0;
    for (const path of herdKeys) {
      const served = await herd(stack, all, options.requests, path);
      const [first, second] = await upstreamRequests(stack, path);
      herdMax = Math.max(herdMax, first + second);
      herdReport[path] = {
        upstream_requests: first + second,
        by_node: [first, second],
        answers: served.length,
        statuses: tally(served.map((s) => String(s.status))),
        x_cache: tally(served.map((s) => s.cache)),
        heights_by_instance: heightsByInstance(served, options.colos),
      };
    }

    // Node 2 lags; half the cities answer first, then node 1 stops answering and every city asks again.
    await stack.upstreams.lag(1, LAG_BLOCKS);
    const early = all.slice(0, Math.ceil(options.colos / 2));
    const lagKeys = [`/cosmos/bank/v1beta1/balances/${address()}`, `/cosmos/staking/v1beta1/delegations/${address()}`];
    const firstWave = await Promise.all(lagKeys.map((path) => herd(stack, early, options.requests, path)));
    await stack.upstreams.refuse(0, 503);
    await sleep(WAVE_GAP_MS);
    const secondWave = await Promise.all(lagKeys.map((path) => herd(stack, all, options.requests, path)));
    const lagReport: Record<string, object> = {};
    let violations = 0;
    for (const [k, path] of lagKeys.entries()) {
      const served = [...firstWave[k]!, ...secondWave[k]!];
      const lower = lowerAfterHigher(served);
      violations += lower;
      lagReport[path] = {
        upstream_requests: await upstreamRequests(stack, path),
        lower_after_higher: lower,
        x_cache: tally(served.map((s) => s.cache)),
        heights_by_instance: heightsByInstance(served, options.colos),
      };
    }

    return {
      colos: options.colos,
      requests_per_instance: options.requests,
      shield: options.shield ? "on" : "off",
      upstream: stack.upstreams.source,
      upstream_requests_counted_by: stack.upstreams.countedBy,
      herd: { keys: herdReport, max_upstream_requests_per_key: herdMax },
      lagging_node: {
        lag_blocks: LAG_BLOCKS,
        scenario: `node 2 reports heights ${LAG_BLOCKS} blocks lower; instances ${early.join(", ")} answer first, then node 1 refuses (503) and all ${options.colos} instances ask again ${WAVE_GAP_MS / 1000} s later`,
        keys: lagReport,
        lower_after_higher: violations,
      },
      seconds: Number(((performance.now() - started) / 1000).toFixed(1)),
    };
  } finally {
    await stack.stop();
  }
}

export type ColoReport = Awaited<ReturnType<typeof simulateColos>>;

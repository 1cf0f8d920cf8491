/**
 * Onboarding benchmark (run by hand: `npm run bench:onboardings [-- --quick]`), loopback only,
 * about 8 minutes at the defaults (under 3 with --quick), stopping by itself.
 *
 * One devnet (a block every second) plays two upstreams by mount tag, and two `wrangler dev`
 * servers with host settings share one webhook receiver:
 *  - "follower": the design as it is: one ChainFollower per network reading each block once and
 *    waking only the onboardings a block names, one WebhookLane per webhook URL, the D1 index;
 *  - "per-onboarding": the same code whose upstream faults every block endpoint (`/__devnet/faults`),
 *    so its follower fails open and every onboarding checks for itself every
 *    ONBOARDING_CHECK_SECONDS: the per-onboarding model, measured in the same run.
 * Measured: upstream requests with few and many waiting (the devnet's counters per tag), chain
 * change → webhook arrival, 200 authorizations in one block, a 60 s receiver outage. Durable Object
 * requests and D1 rows are counted from what the code does per pass, check, hint and change, with
 * the measured rates; 10,000 waiting is computed from the measured costs (formulas in the report).
 * A run at the defaults writes docs/PERFORMANCE.md (section "onboardings").
 */
import { randomBytes } from "node:crypto";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { chainContextFromSettings } from "../src/protocol/chain-settings.ts";
import { typeUrls, type ChainContext } from "../src/protocol/index.ts";
import { startDevnet } from "../devnet/server.ts";
import { startWranglerDev, type WranglerDev } from "../test/e2e/helpers/wrangler-dev.ts";
import { onboardingParties, type OnboardingParties } from "./lib/onboarding-client.ts";
import { writeReportSection } from "./lib/report.ts";
import { machine, summarize } from "./lib/stats.ts";
import { startWebhookClock, type WebhookClock } from "./lib/webhook-clock.ts";

const { values: flags } = parseArgs({ options: { quick: { type: "boolean" } } });
const quick = flags.quick === true;
const S = quick
  ? {
      few: 10,
      many: 100,
      oldFew: 10,
      oldMany: 20,
      windowS: 15,
      journeys: 6,
      oldJourneys: 4,
      burst: 30,
      outageOnboardings: 6,
      outageS: 20,
    }
  : {
      few: 10,
      many: 1000,
      oldFew: 10,
      oldMany: 100,
      windowS: 45,
      journeys: 30,
      oldJourneys: 12,
      burst: 200,
      outageOnboardings: 40,
      outageS: 60,
    };
const CHECK_S = 6;
const BLOCK_MS = 1000;
const FLEET = 10_000;
const RUN_LIMIT_MS = 12 * 60_000;
const HOUR = 3600;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `fn` over `items`, `limit` at a time. */
async function pool<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!, i);
      }
    }),
  );
  return out;
}

interface Side {
  name: string;
  tag: string;
  worker: WranglerDev;
  parties: OnboardingParties;
  ctx: ChainContext;
}

const clock: WebhookClock = await startWebhookClock();
const devnet = await startDevnet({ port: 0, blockMs: BLOCK_MS });
const sides: Side[] = [];
const stopAll = async () => {
  await Promise.allSettled(sides.map((s) => s.worker.stop()));
  await devnet.close();
  await clock.close();
};
const watchdog = setTimeout(() => {
  console.error(`bench:onboardings: still running after ${RUN_LIMIT_MS / 60_000} minutes; stopping`);
  void stopAll().finally(() => process.exit(1));
}, RUN_LIMIT_MS);

const control = (method: string, path: string, body?: unknown) =>
  fetch(`${devnet.url}/__devnet/${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const height = async () => ((await (await control("GET", "status")).json()) as { height: number }).height;
/** Upstream requests of one tag so far, by path (query stripped, heights folded). */
async function upstream(tag: string): Promise<{ count: number; byKind: Record<string, number> }> {
  const answer = (await (await control("GET", `requests?prefix=${encodeURIComponent(`~${tag}/`)}`)).json()) as {
    count: number;
    by_path: Record<string, number>;
  };
  const byKind: Record<string, number> = {};
  for (const [path, n] of Object.entries(answer.by_path)) {
    const kind = path.includes("/blocks/latest")
      ? "latest block"
      : path.includes("/txs/block/") || path.includes("tx.height")
        ? "block's transactions"
        : path.includes("/cosmos/base/tendermint") || path.includes("/cosmos/tx/")
          ? "other block/tx"
          : "state reads";
    byKind[kind] = (byKind[kind] ?? 0) + n;
  }
  return { count: answer.count, byKind };
}
const diff = (a: Record<string, number>, b: Record<string, number>) =>
  Object.fromEntries([...new Set([...Object.keys(a), ...Object.keys(b)])].map((k) => [k, (b[k] ?? 0) - (a[k] ?? 0)]));

/** A broadcast that answers once its block is the latest: the moment the chain changed, as a reader of the head sees it. */
async function broadcastUntilBlock(
  ctx: ChainContext,
  signer: string,
  typeUrl: string,
  value: Record<string, string>,
  wait: boolean,
): Promise<{ height: number; at: number }> {
  const response = await fetch(`${devnet.url}/__devnet/txs${wait ? "?wait=block" : ""}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ signer, messages: [{ typeUrl, value }] }),
  });
  const { tx_response: tx } = (await response.json()) as {
    tx_response: { code: number; raw_log: string; height: string | number };
  };
  if (response.status !== 200 || tx.code !== 0) throw new Error(`broadcast failed: ${response.status} ${tx.raw_log}`);
  return { height: Number(tx.height), at: Date.now() };
}

/** An onboarding created and paired, its `connected` event arrived: waiting for the payout's authorization. */
async function waitingOnboarding(side: Side, label: string, withNode = false) {
  const operator = side.parties.freshAddress();
  const payout = side.parties.freshAddress();
  if (withNode) await side.parties.registerNode(operator);
  const { id } = await side.parties.create(operator, `${label}-${randomBytes(6).toString("hex")}`);
  await side.parties.pair(id, payout);
  await clock.arrival(id, "onboarding.connected", 120_000);
  return { id, operator, payout };
}

/** Upstream requests of both sides over one window of `S.windowS` seconds. */
async function window(): Promise<Record<string, { total: number; byKind: Record<string, number>; seconds: number }>> {
  const before = await Promise.all(sides.map((s) => upstream(s.tag)));
  const from = Date.now();
  await sleep(S.windowS * 1000);
  const after = await Promise.all(sides.map((s) => upstream(s.tag)));
  const seconds = (Date.now() - from) / 1000;
  return Object.fromEntries(
    sides.map((s, i) => [
      s.name,
      { total: after[i]!.count - before[i]!.count, byKind: diff(before[i]!.byKind, after[i]!.byKind), seconds },
    ]),
  );
}

/** Onboardings from paired to applied, each change timed from its block becoming the latest to the event's arrival. */
async function journeys(side: Side, count: number) {
  const types = typeUrls(side.ctx);
  const made = await pool(Array.from({ length: count }), 10, () => waitingOnboarding(side, "journey", true));
  const samples: number[] = [];
  const failures: string[] = [];
  await pool(made, 10, async (o) => {
    try {
      await sleep(Math.random() * CHECK_S * 1000);
      const a = await broadcastUntilBlock(
        side.ctx,
        o.payout,
        types.authorizeOperator,
        { payoutRecipient: o.payout, operator: o.operator, label: "" },
        true,
      );
      samples.push((await clock.arrival(o.id, "onboarding.authorized", 60_000)).arrivedAt - a.at);
      await sleep(Math.random() * CHECK_S * 1000);
      const b = await broadcastUntilBlock(
        side.ctx,
        o.operator,
        types.updateNode,
        { operator: o.operator, payoutRecipient: o.payout },
        true,
      );
      samples.push((await clock.arrival(o.id, "onboarding.applied", 60_000)).arrivedAt - b.at);
    } catch (err) {
      failures.push(String(err instanceof Error ? err.message : err));
    }
  });
  return { ...summarize(samples.map((ms) => ms / 1000)), failures };
}

/** `S.burst` authorizations broadcast together right after a block starts, so they share the next block. */
async function burst(side: Side) {
  const types = typeUrls(side.ctx);
  const made = await pool(Array.from({ length: S.burst }), 20, () => waitingOnboarding(side, "burst"));
  await sleep(2000);
  const start = await height();
  while ((await height()) === start) await sleep(10);
  const sent = await Promise.all(
    made.map((o) =>
      broadcastUntilBlock(
        side.ctx,
        o.payout,
        types.authorizeOperator,
        { payoutRecipient: o.payout, operator: o.operator, label: "" },
        false,
      ),
    ),
  );
  const heights = [...new Set(sent.map((s) => s.height))].sort((a, b) => a - b);
  const latestAt = new Map<number, number>();
  while (latestAt.size < heights.length) {
    const h = await height();
    for (const x of heights) if (h >= x && !latestAt.has(x)) latestAt.set(x, Date.now());
    await sleep(5);
  }
  const samples = await Promise.all(
    made.map(
      async (o, i) =>
        ((await clock.arrival(o.id, "onboarding.authorized", 90_000)).arrivedAt - latestAt.get(sent[i]!.height)!) /
        1000,
    ),
  );
  return { heights, ...summarize(samples) };
}

/** The receiver answers 503 for `S.outageS` seconds while authorizations and node updates land; then how long until every held event arrives. */
async function outage(side: Side) {
  const types = typeUrls(side.ctx);
  const made = await pool(Array.from({ length: S.outageOnboardings }), 10, () =>
    waitingOnboarding(side, "outage", true),
  );
  const ids = new Set(made.map((o) => o.id));
  clock.setDown(true);
  const downAt = Date.now();
  const before = clock.requestsWhileDown().length;
  await pool(made, 20, (o) =>
    broadcastUntilBlock(
      side.ctx,
      o.payout,
      types.authorizeOperator,
      { payoutRecipient: o.payout, operator: o.operator, label: "" },
      false,
    ),
  );
  // The node update needs the authorization on chain first; it lands a few blocks later, still well inside the outage.
  await sleep(Math.min(15_000, (S.outageS * 1000) / 3));
  await pool(made, 20, (o) =>
    broadcastUntilBlock(
      side.ctx,
      o.operator,
      types.updateNode,
      { operator: o.operator, payoutRecipient: o.payout },
      false,
    ),
  );
  await sleep(Math.max(0, downAt + S.outageS * 1000 - Date.now()));
  const times = clock.requestsWhileDown().slice(before);
  const during = times.length;
  const downS = (Date.now() - downAt) / 1000;
  // Requests per 5 s from the outage's start: a burst of attempts already admitted when the first failed, then the probes.
  const per5s = Array.from(
    { length: Math.ceil(downS / 5) },
    (_, i) => times.filter((t) => t - downAt >= i * 5000 && t - downAt < (i + 1) * 5000).length,
  );
  clock.setDown(false);
  const upAt = Date.now();
  const arrivals = await Promise.all(
    made.flatMap((o) =>
      ["onboarding.authorized", "onboarding.applied"].map((type) => clock.arrival(o.id, type, 120_000)),
    ),
  );
  const recoveredS = (Math.max(...arrivals.map((e) => e.arrivedAt)) - upAt) / 1000;
  // In order per onboarding: for each, its events' arrivals follow their order (connected < authorized < applied).
  const byOnboarding = new Map<string, string[]>();
  for (const e of clock.events())
    if (ids.has(e.onboarding)) byOnboarding.set(e.onboarding, [...(byOnboarding.get(e.onboarding) ?? []), e.type]);
  const expected = ["onboarding.connected", "onboarding.authorized", "onboarding.applied"];
  const outOfOrder = [...byOnboarding.values()].filter(
    (types) => types.filter((t) => expected.includes(t)).join() !== expected.join(),
  ).length;
  return { onboardings: made.length, events: arrivals.length, downS, during, per5s, recoveredS, outOfOrder };
}

const f = (v: number, digits = 0) =>
  v.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
const s1 = (v: number) => `${v.toFixed(2)} s`;

try {
  const load = loadavg();
  const apiKey = randomBytes(32).toString("hex");
  // The per-onboarding side: its follower can read no block, so it fails open.
  for (const prefix of ["/cosmos/base/tendermint", "/cosmos/tx"])
    await control("POST", "faults", { tag: "old", prefix, status: 503 });
  const started = await Promise.all(
    [
      { name: "follower", tag: "new" },
      { name: "per-onboarding", tag: "old" },
    ].map(async ({ name, tag }) => {
      const worker = await startWranglerDev({
        UPSTREAM_URLS: `${devnet.url}/~${tag}`,
        HOST_API_KEYS: apiKey,
        HOST_WEBHOOK_SECRET: clock.secret,
        HOST_WEBHOOK_URL: clock.url,
        ONBOARDING_CHECK_SECONDS: String(CHECK_S),
        RATE_LIMITS: "off",
      });
      const ctx = chainContextFromSettings(await (await fetch(`${worker.url}/api/config`)).json());
      return {
        name,
        tag,
        worker,
        ctx,
        parties: onboardingParties({ service: worker.url, devnet: devnet.url, apiKey, ctx }),
      };
    }),
  );
  sides.push(...started);
  const [neu, old] = sides as [Side, Side];
  console.error(`servers up; load ${load.map((l) => l.toFixed(2)).join(" ")}`);

  // 1. Upstream with few waiting, then many, on both sides in the same windows.
  await Promise.all([
    pool(Array.from({ length: S.few }), 10, () => waitingOnboarding(neu, "few")),
    pool(Array.from({ length: S.oldFew }), 10, () => waitingOnboarding(old, "few")),
  ]);
  await sleep(CHECK_S * 1000);
  const few = await window();
  console.error("few", JSON.stringify(few));
  const t0 = Date.now();
  await Promise.all([
    pool(Array.from({ length: S.many - S.few }), 20, () => waitingOnboarding(neu, "many")),
    pool(Array.from({ length: S.oldMany - S.oldFew }), 10, () => waitingOnboarding(old, "many")),
  ]);
  const createSeconds = (Date.now() - t0) / 1000;
  await sleep(CHECK_S * 1000);
  const many = await window();
  console.error("many", JSON.stringify(many), `created in ${createSeconds} s`);

  // 2. Chain change → event on both (the many waiting stay waiting meanwhile).
  const [newLatency, oldLatency] = await Promise.all([journeys(neu, S.journeys), journeys(old, S.oldJourneys)]);
  console.error("latency", JSON.stringify({ newLatency, oldLatency }));
  // The per-onboarding side has given its figures; stopping it gives the follower's phases the machine.
  await old.worker.stop();
  sides.pop();

  // 3. Many authorizations in one block; 4. a receiver outage.
  const burstResult = await burst(neu);
  console.error("burst", JSON.stringify(burstResult));
  const outageResult = await outage(neu);
  console.error("outage", JSON.stringify(outageResult));

  const markdown = report({ load, few, many, createSeconds, newLatency, oldLatency, burstResult, outageResult });
  console.log(markdown);
  console.log(
    JSON.stringify({
      quick,
      settings: S,
      load,
      few,
      many,
      createSeconds,
      newLatency,
      oldLatency,
      burstResult,
      outageResult,
    }),
  );
  if (!quick) writeReportSection("onboardings", markdown);
  if (newLatency.failures.length || oldLatency.failures.length || clock.refused() > 0) process.exitCode = 1;
} finally {
  clearTimeout(watchdog);
  await stopAll();
}

interface Figures {
  load: number[];
  few: Awaited<ReturnType<typeof window>>;
  many: Awaited<ReturnType<typeof window>>;
  createSeconds: number;
  newLatency: Awaited<ReturnType<typeof journeys>>;
  oldLatency: Awaited<ReturnType<typeof journeys>>;
  burstResult: Awaited<ReturnType<typeof burst>>;
  outageResult: Awaited<ReturnType<typeof outage>>;
}

function report(r: Figures): string {
  const perHour = (w: { total: number; seconds: number }) => (w.total * HOUR) / w.seconds;
  const kindPerHour = (w: { byKind: Record<string, number>; seconds: number }, kind: string) =>
    ((w.byKind[kind] ?? 0) * HOUR) / w.seconds;
  const nf = r.few["follower"]!;
  const nm = r.many["follower"]!;
  const of = r.few["per-onboarding"]!;
  const om = r.many["per-onboarding"]!;
  // The follower: what does not depend on the number waiting (the head and each block's transactions), measured with many waiting.
  const followerFixed =
    kindPerHour(nm, "latest block") + kindPerHour(nm, "block's transactions") + kindPerHour(nm, "other block/tx");
  // Each waiting onboarding's own safety-net check: one state read every 10 minutes while the follower follows.
  const safetyReads = HOUR / 600;
  const newUpstream = (n: number) => followerFixed + n * safetyReads;
  // Per-onboarding: state reads per waiting onboarding, measured with many waiting, plus its follower's failing attempts.
  const oldReadsPerOnboarding = kindPerHour(om, "state reads") / S.oldMany;
  const oldFollower =
    kindPerHour(om, "latest block") + kindPerHour(om, "block's transactions") + kindPerHour(om, "other block/tx");
  const oldUpstream = (n: number) => oldFollower + n * oldReadsPerOnboarding;
  const oldChecksPerHour = oldReadsPerOnboarding; // one state read per check while `connected`
  // Durable Object requests, counted from the code: a follower pass is one alarm; an onboarding's check is its alarm plus its `watch` call
  // to the follower; a hint is the follower's `chainHint` call plus the onboarding's alarm set to now (no changes happen while waiting).
  const passesPerHour = kindPerHour(nm, "latest block");
  const newDo = (n: number) => passesPerHour + n * safetyReads * 2;
  const oldDo = (n: number) => passesPerHour + n * oldChecksPerHour * 2;
  const sizes = [10, 1000, FLEET];
  // Prices, Workers Paid (monthly): see the text below the table.
  const month = 730;
  const doPrice = (perHour: number) => Math.max(0, perHour * month - 1e6) * (0.15 / 1e6);
  // Duration (wall-clock while a request runs, the upstream read awaited inside it), at 128 MB per object; the read's
  // time on the network is not measured here (loopback answers in a millisecond), so READ_S is an assumption.
  const READ_S = 0.1;
  const GB = 0.128;
  const gbsPerMonth = (awakeSecondsPerHour: number) => awakeSecondsPerHour * GB * month;
  const durationPrice = (gbs: number) => Math.max(0, gbs - 400_000) * (12.5 / 1e6);
  // Before: each check awaits one read. After: each pass awaits the head and one block (2 reads), each safety-net check one.
  const gbsOld = gbsPerMonth(FLEET * oldChecksPerHour * READ_S + passesPerHour * READ_S);
  const gbsNew = gbsPerMonth(passesPerHour * 2 * READ_S + FLEET * safetyReads * READ_S);
  const costNew = doPrice(newDo(FLEET));
  const costOld = doPrice(oldDo(FLEET));
  const durNew = durationPrice(gbsNew);
  const durOld = durationPrice(gbsOld);

  return `
## Onboardings

\`npm run bench:onboardings\` — one run on ${machine()}, load average ${r.load.map((l) => l.toFixed(2)).join(" / ")} (1 / 5 / 15 min) at the start.
One devnet (a block every ${BLOCK_MS / 1000} s) plays two upstreams by mount tag; two \`wrangler dev\` servers run the same
code with host settings (\`ONBOARDING_CHECK_SECONDS=${CHECK_S}\`) and share one webhook receiver on loopback:

- **follower**: the design as it is: one ChainFollower reads the head and each new block once and hints
  only the onboardings a block names; one WebhookLane per webhook URL; the D1 index;
- **per-onboarding**: the same code, but every block and transaction endpoint of its upstream answers 503
  (\`/__devnet/faults\`), so its follower fails open and each onboarding checks for itself every
  ${CHECK_S} s: the model before the follower, measured in the same run.

Dev-server figures on a shared 2-core machine: compare within the run, not across machines.

### Upstream requests while onboardings wait

Onboardings paired and never authorized (waiting in \`connected\`); the devnet's counters per tag over
${s1(nm.seconds)} windows, scaled to an hour. 10 and ${f(S.many)} waiting on the follower side were really run
(${f(S.many)} created and paired in ${r.createSeconds.toFixed(0)} s); the per-onboarding side really ran ${S.oldFew} and ${S.oldMany}.

| side | waiting | upstream requests in the window | by kind | per hour |
|---|---|---|---|---|
| follower | ${S.few} | ${nf.total} | ${Object.entries(nf.byKind)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ")} | ${f(perHour(nf))} |
| follower | ${S.many} | ${nm.total} | ${Object.entries(nm.byKind)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ")} | ${f(perHour(nm))} |
| per-onboarding | ${S.oldFew} | ${of.total} | ${Object.entries(of.byKind)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ")} | ${f(perHour(of))} |
| per-onboarding | ${S.oldMany} | ${om.total} | ${Object.entries(om.byKind)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ")} | ${f(perHour(om))} |

"latest block" and "block's transactions" are the follower's reads (on the per-onboarding side, its
failing attempts, answered 503 by the fault); "state reads" are the onboardings' own checks.

### Per hour, 10 / 1,000 / 10,000 waiting

Formulas (per hour, N waiting):
- upstream, follower: F + N × 6, where F = ${f(followerFixed)} (the follower's head and block reads measured
  with ${f(S.many)} waiting) and 6 = one safety-net check every 10 minutes per onboarding (3600 ÷ 600; none fell in
  the windows, as none was due);
- upstream, per-onboarding: F′ + N × c, where c = ${f(oldReadsPerOnboarding, 1)} state reads per onboarding-hour measured with
  ${S.oldMany} waiting (3600 ÷ ${CHECK_S} s = 600 by the interval) and F′ = ${f(oldFollower)} the failing follower's attempts;
- Durable Object requests, counted from the code: a follower pass is one alarm (P = ${f(passesPerHour)} passes per hour,
  one per head read); an onboarding's check is its alarm plus its \`watch\` call to the follower (2); a hint is the
  follower's \`chainHint\` call plus the onboarding's alarm (2), and waiting onboardings get none. Follower:
  P + N × 6 × 2; per-onboarding: P + N × c × 2;
- D1 rows: a waiting onboarding changes nothing, so it writes no row, and the index is read only by the
  host's list and feed queries: 0 per hour on both sides (both run the index). Counted from the statements
  (src/onboardings/index/store.ts; local D1 under \`wrangler d1 execute\` reports no row counts, so they are not
  observed): each change writes one batch, an \`INSERT OR IGNORE\` per new event and one upsert of the
  onboarding's row. D1 bills one written row per table row plus one per index entry it touches, so a change
  writes at most 1 + 5 (the onboardings table and its 5 indexes) + 1 + 3 (an event, its \`id\` unique index and 2
  indexes) = 10 rows and reads about 2 (the conflicting row, the unique check); an onboarding from create to
  \`applied\` makes about 4 changes, at most 40 rows written.

| waiting | upstream/h follower | upstream/h per-onboarding | DO requests/h follower | DO requests/h per-onboarding | D1 rows read / written per h while waiting |
|---|---|---|---|---|---|
${sizes.map((n) => `| ${f(n)} | ${f(newUpstream(n))} | ${f(oldUpstream(n))} | ${f(newDo(n))} | ${f(oldDo(n))} | 0 / 0 |`).join("\n")}

Measured in the windows and scaled to an hour (the rows above use the formulas): follower ${f(perHour(nf))} with ${S.few} waiting and
${f(perHour(nm))} with ${f(S.many)}; per-onboarding ${f(perHour(of))} with ${S.oldFew} and ${f(perHour(om))} with ${S.oldMany}. The follower side's
10 and ${f(S.many)} rows were really run; its 10,000 and the per-onboarding side's 1,000 and 10,000 are computed.

Goal: upstream cost independent of the number waiting, about one request a second plus one per block
(${f(HOUR + HOUR / (BLOCK_MS / 1000))} per hour here): the follower side's ${f(perHour(nf))} with ${S.few} and ${f(perHour(nm))} with ${f(S.many)} waiting.

### Chain change → event

Each change is a transaction broadcast with \`?wait=block\`, timed from the moment its block became the
latest (the devnet's answer) to the webhook's arrival; a random wait of up to ${CHECK_S} s before each broadcast.
Both sides ran at once, with the ${f(S.many)} and ${S.oldMany} waiting onboardings still waiting.

| side | changes | p50 | p99 | max |
|---|---|---|---|---|
| follower | ${r.newLatency.n} | ${s1(r.newLatency.p50)} | ${s1(r.newLatency.p99)} | ${s1(r.newLatency.max)} |
| per-onboarding | ${r.oldLatency.n} | ${s1(r.oldLatency.p50)} | ${s1(r.oldLatency.p99)} | ${s1(r.oldLatency.max)} |

Goal: an event within one second of the block that carries its change: ${r.newLatency.p99 <= 1 ? "met" : "missed"} on the follower side (p99 ${s1(r.newLatency.p99)}).
The follower asks the head once a second and the devnet makes a block every second, so the phase between the two is
fixed within a run: a change waits the same part of a second for the next pass in every sample (spread from 0 to
1 s across runs), then the block's read, the hint, the onboarding's state read and the delivery. The per-onboarding
side waits for its next check (0 to ${CHECK_S} s).${r.oldLatency.n <= 100 ? ` With n ≤ 100, p99 is the largest sample.` : ""}${r.newLatency.failures.length + r.oldLatency.failures.length ? ` Failures: ${[...r.newLatency.failures, ...r.oldLatency.failures].slice(0, 2).join("; ")}` : ""}

### ${S.burst} authorizations in one block

${S.burst} onboardings waiting (follower side); their ${S.burst} MsgAuthorizeOperator broadcast together just after a
block began. Heights the devnet gave them: ${r.burstResult.heights.join(", ")} (${r.burstResult.heights.length === 1 ? "one block" : `${r.burstResult.heights.length} blocks`}). From that block becoming the latest to
each \`onboarding.authorized\` arriving: p50 ${s1(r.burstResult.p50)}, p99 ${s1(r.burstResult.p99)}, max ${s1(r.burstResult.max)} (n = ${r.burstResult.n}).
Against the goal of one second: ${r.burstResult.p99 <= 1 ? "met" : "missed"} here: one pass hints all ${S.burst} at once, and their ${S.burst} state reads,
index writes and deliveries share one \`wrangler dev\` on 2 cores.

### A receiver outage

${r.outageResult.onboardings} onboardings (follower side); the receiver answered 503 to everything for ${r.outageResult.downS.toFixed(0)} s while each
onboarding's authorization and then its node update landed, so ${r.outageResult.events} events fell due during the outage.

| measure | figure |
|---|---|
| requests the receiver got during the outage | ${r.outageResult.during} |
| the same, per 5 s from the outage's start | ${r.outageResult.per5s.join(", ")} |
| receiver answering again → every held event delivered | ${s1(r.outageResult.recoveredS)} (goal: within 15 s) |
| onboardings whose events arrived out of order | ${r.outageResult.outOfOrder} of ${r.outageResult.onboardings} |

While the receiver answers, the lane only says "go", so every attempt admitted before the first failure is
reported reaches the receiver once (the first bucket, where all ${r.outageResult.onboardings} authorizations fall due within a block or
two); from then on the lane holds everyone and its probe is one request every 5 s, whatever the number waiting.

### What ${f(FLEET)} waiting onboardings cost a month

Prices of the Workers Paid plan as published (read 2026-11-25): Durable Objects 1 million requests a month included, then
$0.15 per million, alarms and every RPC call counted as requests
(developers.cloudflare.com/durable-objects/platform/pricing); Workers Standard 10 million requests a month
included, then $0.30 per million (as the Workflows pricing page states it, Workflows being priced as Workers
Standard: developers.cloudflare.com/workflows/reference/pricing); D1 25 billion rows read and
50 million rows written a month included, then $0.001 and $1.00 per million (developers.cloudflare.com/d1/platform/pricing);
the $5 monthly minimum of the plan. Alarms and RPC calls between objects are not Worker requests, and
upstream requests are subrequests, not billed; a waiting onboarding adds no Worker request and no D1 row.
Durable Object duration, 400,000 GB-s a month included, then $12.50 per million GB-s, billed while a request
runs (its upstream read awaited inside it) at 128 MB per object; an idle object without WebSockets hibernates and
costs nothing. The read's time on the network is **assumed** ${READ_S * 1000} ms (not measured: loopback answers in a
millisecond): before, each check awaits one read; after, each follower pass awaits two (head and block) and each
safety-net check one. Month = ${month} hours.

| | DO requests a month | DO request cost | DO duration a month (assumed) | duration cost | D1 | total with the $5 minimum |
|---|---|---|---|---|---|---|
| per-onboarding (before) | ${f(oldDo(FLEET) * month)} | $${f(costOld, 2)} | ${f(gbsOld)} GB-s | $${f(durOld, 2)} | $0 | $${f(costOld + durOld + 5, 2)} |
| follower (after) | ${f(newDo(FLEET) * month)} | $${f(costNew, 2)} | ${f(gbsNew)} GB-s | $${f(durNew, 2)} | $0 | $${f(costNew + durNew + 5, 2)} |

The upstream side of the same fleet: ${f(oldUpstream(FLEET) * month)} requests a month before, ${f(newUpstream(FLEET) * month)} after, on the
network's own nodes (not billed by Cloudflare, but the reason for the design).
`;
}

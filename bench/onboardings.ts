/**
 * Onboarding benchmark (run by hand: `npm run bench:onboardings -- [options]`), loopback only,
 * about 3 minutes at the defaults, stopping by itself.
 *
 * Starts the devnet, a webhook receiver and `wrangler dev` with host settings, and measures:
 *  1. from the chain changing (a broadcast on the devnet) to `onboarding.authorized` and
 *     `onboarding.applied` arriving, p50/p99/max over many onboardings run in waves;
 *  2. upstream requests per waiting onboarding per minute (the devnet's counters, the Worker's
 *     upstream mounted under its own tag), and the Durable Object wake-ups that implies;
 *  3. what 10,000 open onboardings cost per hour from those rates, in each regime of the schedule.
 * Prints the tables, then the figures as JSON on the last line. A run at the defaults writes
 * docs/PERFORMANCE.md (section "onboardings").
 *
 * Options: --onboardings N (40), --wave N (20 at a time), --waiting K (20),
 * --window-seconds S (60), --check-seconds N (ONBOARDING_CHECK_SECONDS, 6), --quick.
 */
import { randomBytes } from "node:crypto";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { chainContextFromSettings, operatorAuthorizationsPath } from "../src/protocol/index.ts";
import { freeLoopbackPort } from "../test/e2e/helpers/ports.ts";
import { startLocalStack, type LocalStack } from "./lib/local-stack.ts";
import { onboardingParties, type OnboardingParties } from "./lib/onboarding-client.ts";
import { costPerHour, ONCE_PER_ONBOARDING, ONCE_TOTAL, type CostRow } from "./lib/onboarding-cost.ts";
import { writeReportSection } from "./lib/report.ts";
import { machine, summarize } from "./lib/stats.ts";
import { startWebhookClock, type WebhookClock } from "./lib/webhook-clock.ts";

const DEFAULTS = { onboardings: 40, wave: 20, waiting: 20, "window-seconds": 60, "check-seconds": 6 };
const QUICK = { onboardings: 6, wave: 6, waiting: 5, "window-seconds": 20 };
/** The onboardings the cost is computed for. */
const FLEET = 10_000;
/** Past this the run is abandoned (everything started is still stopped). */
const RUN_LIMIT_MS = 15 * 60_000;
/** The Worker's upstream is the devnet under this mount tag, so its requests are counted apart. */
const TAG = "ob";

type Setting = keyof typeof DEFAULTS;
const { values: flags } = parseArgs({
  options: {
    quick: { type: "boolean" },
    ...(Object.fromEntries(Object.keys(DEFAULTS).map((name) => [name, { type: "string" }])) as Record<Setting, { type: "string" }>),
  },
});
const settings = { ...DEFAULTS, ...(flags.quick ? QUICK : {}) };
for (const name of Object.keys(DEFAULTS) as Setting[]) {
  const given = flags[name];
  if (given === undefined) continue;
  if (!/^\d+$/.test(given) || Number(given) < 1) throw new Error(`--${name} must be a positive whole number, got ${given}`);
  settings[name] = Number(given);
}
const atDefaults = Object.keys(flags).length === 0;
const checkMs = settings["check-seconds"] * 1000;
/** How long one event may take: three checks and the first retry of a failed delivery. */
const eventTimeoutMs = 3 * checkMs + 30_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A wait of a random part of one check interval: the next broadcast falls anywhere in the check cycle. */
const randomPhase = () => sleep(Math.random() * checkMs);

interface Journey {
  /** Broadcast answered → event arrived, ms. */
  authorizedMs: number;
  appliedMs: number;
  /** webhook-timestamp (whole seconds) − broadcast answered, s. */
  authorizedHeaderS: number;
  appliedHeaderS: number;
  /** Round trips of the two broadcasts, ms. */
  broadcastMs: number[];
}

/** One onboarding from create to applied, timing each event from the change on the devnet. */
async function journey(parties: OnboardingParties, clock: WebhookClock, reference: string): Promise<Journey> {
  const operator = parties.freshAddress();
  const payout = parties.freshAddress();
  await parties.registerNode(operator);
  const { id } = await parties.create(operator, reference);
  await parties.pair(id, payout);
  await clock.arrival(id, "onboarding.connected", eventTimeoutMs);

  await randomPhase();
  const sent = Date.now();
  await parties.authorize(payout, operator);
  const changed = Date.now();
  const authorized = await clock.arrival(id, "onboarding.authorized", eventTimeoutMs);

  await randomPhase();
  const sent2 = Date.now();
  await parties.applyPayout(operator, payout);
  const changed2 = Date.now();
  const applied = await clock.arrival(id, "onboarding.applied", eventTimeoutMs);
  return {
    authorizedMs: authorized.arrivedAt - changed,
    appliedMs: applied.arrivedAt - changed2,
    authorizedHeaderS: authorized.timestamp - changed / 1000,
    appliedHeaderS: applied.timestamp - changed2 / 1000,
    broadcastMs: [changed - sent, changed2 - sent2],
  };
}

async function measureLatency(parties: OnboardingParties, clock: WebhookClock, run: string) {
  const journeys: Journey[] = [];
  const failures: string[] = [];
  for (let start = 0; start < settings.onboardings; start += settings.wave) {
    const size = Math.min(settings.wave, settings.onboardings - start);
    const outcomes = await Promise.allSettled(Array.from({ length: size }, (_, i) => journey(parties, clock, `${run}-journey-${start + i}`)));
    for (const outcome of outcomes) {
      if (outcome.status === "fulfilled") journeys.push(outcome.value);
      else failures.push(String(outcome.reason instanceof Error ? outcome.reason.message : outcome.reason));
    }
  }
  const seconds = (ms: number[]) => summarize(ms.map((v) => v / 1000));
  return {
    authorized: seconds(journeys.map((j) => j.authorizedMs)),
    applied: seconds(journeys.map((j) => j.appliedMs)),
    authorizedHeader: summarize(journeys.map((j) => j.authorizedHeaderS)),
    appliedHeader: summarize(journeys.map((j) => j.appliedHeaderS)),
    broadcastMs: summarize(journeys.flatMap((j) => j.broadcastMs)),
    failures,
  };
}

/** Upstream requests the Worker made so far, by `~tag/path?query`. */
async function upstreamRequests(stack: LocalStack): Promise<{ count: number; by_path: Record<string, number> }> {
  const response = await stack.control("GET", `requests?prefix=${encodeURIComponent(`~${TAG}/`)}`);
  return (await response.json()) as { count: number; by_path: Record<string, number> };
}

async function measureWaiting(stack: LocalStack, parties: OnboardingParties, clock: WebhookClock, run: string, namespace: string) {
  const waiting = await Promise.all(
    Array.from({ length: settings.waiting }, async (_, i) => {
      const payout = parties.freshAddress();
      const created = await parties.create(parties.freshAddress(), `${run}-waiting-${i}`);
      // Pairings spread over one interval: checks in step would make the window's count jump by K.
      await sleep((i / settings.waiting) * checkMs);
      await parties.pair(created.id, payout);
      await clock.arrival(created.id, "onboarding.connected", eventTimeoutMs);
      return { ...created, payout };
    }),
  );
  const ids = new Set(waiting.map((w) => w.id));
  const paths = waiting.map((w) => `~${TAG}${operatorAuthorizationsPath({ namespace }, w.payout)}`);
  const before = await upstreamRequests(stack);
  const from = Date.now();
  await sleep(settings["window-seconds"] * 1000);
  const after = await upstreamRequests(stack);
  const to = Date.now();
  const reads = paths.reduce((sum, path) => sum + (after.by_path[path] ?? 0) - (before.by_path[path] ?? 0), 0);
  const minutes = (to - from) / 60_000;
  const readsPerMinute = reads / waiting.length / minutes;
  const deliveries = clock.events().filter((e) => ids.has(e.onboarding) && e.arrivedAt >= from && e.arrivedAt <= to).length;
  const first = waiting[0]!;
  return {
    onboardings: waiting.length,
    windowSeconds: (to - from) / 1000,
    reads,
    otherUpstream: after.count - before.count - reads,
    readsPerMinute,
    /** Each check while `connected` reads operator_authorizations/<payout> once, so checks = reads. */
    readsPerCheck: 1,
    deliveriesPerMinute: deliveries / waiting.length / minutes,
    wakeUpsPerMinute: readsPerMinute + deliveries / waiting.length / minutes,
    meanCheckSeconds: 60 / readsPerMinute,
    ttlSeconds: (Date.parse(first.expires_at) - Date.parse(first.created_at)) / 1000,
  };
}

const s = (v: number, digits = 1) => `${v.toFixed(digits)} s`;
const n = (v: number, digits = 0) => v.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

function report(load: number, latency: Awaited<ReturnType<typeof measureLatency>>, waiting: Awaited<ReturnType<typeof measureWaiting>>, cost: CostRow[]): string {
  const interval = settings["check-seconds"];
  const recent = cost[0]!;
  const row = (event: string, t: typeof latency.authorized, h: typeof latency.authorizedHeader) =>
    `| \`${event}\` | ${t.n} | ${s(t.p50)} | ${s(t.p99)} | ${s(t.max)} | ${s(h.p50)} / ${s(h.max)} |`;
  return `
## Onboardings

\`npm run bench:onboardings\` — one run on ${machine()} (load average ${load.toFixed(1)} at the start), against \`wrangler dev\` with host settings
(\`ONBOARDING_CHECK_SECONDS=${interval}\`), the devnet as its only upstream (a block every second) and a
webhook receiver on loopback. Dev-server figures: compare within the run, not across machines.

### From the chain changing to the event leaving

${latency.authorized.n + latency.failures.length} onboardings, ${settings.wave} at a time. Each: a node registered for a fresh
operator, the onboarding created through the host API, a fresh payout paired by the page (\`in_app\`),
then, after a random part of one check interval (so the change falls anywhere in the check cycle),
the payout's MsgAuthorizeOperator broadcast on the devnet at T; once \`onboarding.authorized\` has
arrived, another random wait and the operator's MsgUpdateNode at T2. The devnet puts a broadcast
transaction into the current block at once (the broadcast answers in ${latency.broadcastMs.p50.toFixed(0)} ms, p50), so T is
when the chain changed; on the network a transaction waits for the next block, up to one block
more than shown here. Arrival on loopback stands for the event leaving; the header column is the
event's \`webhook-timestamp\` (whole seconds, the attempt's start) minus T, so it reads up to 1 s low.

| event | n | p50 | p99 | max | \`webhook-timestamp\` − T, p50 / max |
|---|---|---|---|---|---|
${row("onboarding.authorized", latency.authorized, latency.authorizedHeader)}
${row("onboarding.applied", latency.applied, latency.appliedHeader)}

Check interval ${interval} s: an event leaves at the first check after the change, so the wait is spread
over 0 to ${interval} s (p50 near half of it) plus the read and the delivery; beyond ${interval} s is a late alarm or a
slow read on this shared machine.${latency.authorized.n <= 100 ? ` With n = ${latency.authorized.n}, p99 is the largest sample.` : ""}${latency.failures.length ? ` ${latency.failures.length} onboarding(s) did not finish: ${latency.failures[0]}` : ""}

### Waiting onboardings

${waiting.onboardings} onboardings paired (spread over one check interval) and never authorized, so waiting in \`connected\`;
their upstream requests counted by the devnet for ${s(waiting.windowSeconds)}:

| measure | figure |
|---|---|
| upstream requests for them (each \`operator_authorizations/<payout>\`) | ${waiting.reads} |
| per waiting onboarding per minute | ${waiting.readsPerMinute.toFixed(2)} (60 s ÷ ${interval} s = ${(60 / interval).toFixed(2)} by the interval) |
| mean time between two checks | ${s(waiting.meanCheckSeconds, 2)} |
| other upstream requests of the Worker in the window | ${waiting.otherUpstream} |
| Durable Object wake-ups per onboarding per minute | ${waiting.wakeUpsPerMinute.toFixed(2)}: one alarm per check (${waiting.readsPerCheck} read each) plus ${waiting.deliveriesPerMinute.toFixed(2)} for deliveries (an event goes out in the wake-up of the check that found it) |

### ${n(FLEET)} open onboardings per hour

From the rates above: each check is one alarm (one Durable Object request) and ${waiting.readsPerCheck} upstream read, at
the schedule's delay (\`checkDelayMs\` in src/onboardings/schedule.ts) plus the ${s(Math.max(0, waiting.meanCheckSeconds - interval), 2)} a check
took beyond it here. An onboarding that is \`authorized\` and waits for its host reads the node record
instead: also one read per check.

| regime | check every | alarms per onboarding-hour × onboardings | Durable Object requests/h | upstream requests/h |
|---|---|---|---|---|
${cost.map((c) => `| ${c.regime} | ${c.delaySeconds === null ? "never" : s(c.delaySeconds, 0)} | ${c.arithmetic} | ${n(c.doRequestsPerHour)} | ${n(c.upstreamPerHour)} |`).join("\n")}

Besides its checks, a typical onboarding makes ${ONCE_TOTAL} Durable Object requests once in its life, none of them upstream:

${ONCE_PER_ONBOARDING.map((o) => `- ${o.what}: ${o.requests}`).join("\n")}

For ${n(FLEET)} onboardings that is ${n(ONCE_TOTAL * FLEET)} in all, ${(((ONCE_TOTAL * FLEET) / recent.doRequestsPerHour) * 100).toFixed(1)} % of one hour of checks in the first regime.

What dominates is the checks of onboardings waiting within 30 minutes of a change: one alarm and one upstream
read each every ${interval} s, ${n(recent.upstreamPerHour / 3600)} reads a second for ${n(FLEET)} of them, while an \`open\` one costs next to nothing.
Sharing reads would make the upstream cost grow with blocks instead of onboardings: one read of the nodes list
per check serving every \`authorized\` onboarding of any operator, and one query of new MsgAuthorizeOperator
transactions per block serving every \`connected\` one (the alarms would stay unless one object read for all).
`;
}

const clock = await startWebhookClock();
let stack: LocalStack | undefined;
const stopAll = async () => {
  await stack?.stop();
  await clock.close();
};
const watchdog = setTimeout(() => {
  console.error(`bench:onboardings: still running after ${RUN_LIMIT_MS / 60_000} minutes; stopping`);
  void stopAll().finally(() => process.exit(1));
}, RUN_LIMIT_MS);
try {
  const apiKey = randomBytes(32).toString("hex");
  stack = await startLocalStack({
    port: await freeLoopbackPort(),
    upstreamTags: [TAG],
    vars: {
      HOST_API_KEYS: apiKey,
      HOST_WEBHOOK_SECRET: clock.secret,
      HOST_WEBHOOK_URL: clock.url,
      ONBOARDING_CHECK_SECONDS: String(settings["check-seconds"]),
      RATE_LIMITS: "off",
    },
  });
  const service = stack.worker.url;
  const ctx = chainContextFromSettings(await (await fetch(`${service}/api/config`)).json());
  const parties = onboardingParties({ service, devnet: stack.devnet.url, apiKey, ctx });
  const run = randomBytes(4).toString("hex");

  const load = loadavg()[0]!;
  const latency = await measureLatency(parties, clock, run);
  const waiting = await measureWaiting(stack, parties, clock, run, ctx.namespace);
  const cost = costPerHour({ checkSeconds: settings["check-seconds"], readsPerMinute: waiting.readsPerMinute, readsPerCheck: waiting.readsPerCheck, ttlSeconds: waiting.ttlSeconds }, FLEET);

  const markdown = report(load, latency, waiting, cost);
  console.log(markdown);
  if (atDefaults) writeReportSection("onboardings", markdown);
  const repeats = clock.events().length - new Set(clock.events().map((e) => e.id)).size;
  if (latency.failures.length > 0 || clock.refused() > 0) process.exitCode = 1;
  console.log(JSON.stringify({ settings, machine: machine(), loadAverage: load, latency, waiting, cost, oncePerOnboarding: ONCE_TOTAL, unverifiedWebhooks: clock.refused(), repeatedDeliveries: repeats }));
} finally {
  clearTimeout(watchdog);
  await stopAll();
}

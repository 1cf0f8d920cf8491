/**
 * The onboarding page's first screen on a slow phone (`npm run bench:page`): starts the devnet and
 * `wrangler dev` on a free port, then loads the page cold in Chromium at 390×844 with the CPU
 * slowed 4× and the network throttled to DevTools' Fast 3G and 4G profiles and not at all, the
 * profiles alternating run by run. Prints, per profile, the median time from navigation start to
 * the connect QR and "Open wallet" link on screen, and the sequential round trips before it.
 * Writes docs/PERFORMANCE.md (section "first-screen").
 */
import { toBech32 } from "@cosmjs/encoding";
import { randomBytes } from "node:crypto";
import { chromium } from "playwright-core";
import { chooseChromium } from "../test/e2e/helpers/chromium.ts";
import { freeLoopbackPort } from "../test/e2e/helpers/ports.ts";
import { measureFirstScreen, NETWORK_PROFILES, type FirstScreen } from "./lib/first-screen.ts";
import { startLocalStack } from "./lib/local-stack.ts";
import { writeReportSection } from "./lib/report.ts";
import { machine, percentile } from "./lib/stats.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const CPU_SLOWDOWN = 4;
const VIEWPORT = { width: 390, height: 844 };

const choice = await chooseChromium();
const stack = await startLocalStack({ port: await freeLoopbackPort(), vars: { RATE_LIMITS: "off" } });
const browser = await chromium.launch({ executablePath: choice.executablePath, args: choice.args, headless: true });
const results = new Map<string, FirstScreen[]>(NETWORK_PROFILES.map((p) => [p.name, []]));
try {
  const settings = (await (await fetch(`${stack.worker.url}/api/config`)).json()) as { bech32_prefix: string };
  // One warm-up load, untimed: wrangler dev compiles and starts the Worker on the first requests.
  const url = () => `${stack.worker.url}/?operator=${toBech32(settings.bech32_prefix, randomBytes(20))}&label=bench`;
  await measureFirstScreen(browser, url(), NETWORK_PROFILES[2]!, 1, VIEWPORT);
  for (let run = 0; run < RUNS; run++) {
    for (const profile of NETWORK_PROFILES) {
      const result = await measureFirstScreen(browser, url(), profile, CPU_SLOWDOWN, VIEWPORT);
      results.get(profile.name)!.push(result);
      console.log(`${profile.name.padEnd(12)} run ${run + 1}: ${result.msToQr.toFixed(0)} ms, ${result.roundTrips} round trips (${result.chain.join(" → ")})`);
    }
  }
} finally {
  await browser.close();
  await stack.stop();
}

const median = (values: number[]) => percentile([...values].sort((a, b) => a - b), 50);
const rows = NETWORK_PROFILES.map((profile) => {
  const runs = results.get(profile.name)!;
  const ms = runs.map((r) => r.msToQr);
  const trips = median(runs.map((r) => r.roundTrips));
  const chain = runs.find((r) => r.roundTrips === trips)?.chain.join(" → ") ?? "";
  const sorted = [...ms].sort((a, b) => a - b);
  return { name: profile.name, ms: median(ms), min: sorted[0]!, max: sorted.at(-1)!, trips, chain };
});
for (const row of rows) console.log(`${row.name}: time to QR ${row.ms.toFixed(0)} ms (min ${row.min.toFixed(0)}, max ${row.max.toFixed(0)}), ${row.trips} round trips: ${row.chain}`);

writeReportSection(
  "first-screen",
  `## First screen

\`npm run bench:page\` — one run on ${machine()}, against \`wrangler dev\` with the devnet. Chromium
(${choice.source}) at ${VIEWPORT.width}×${VIEWPORT.height}, CPU slowed ${CPU_SLOWDOWN}× and the network throttled through the DevTools
protocol (Fast 3G: 562.5 ms latency, 1.44 Mbit/s down; 4G: 165 ms, 8.1 Mbit/s), each load cold (new
context: empty cache, new connections), ${RUNS} loads per profile, alternating. Time to QR is navigation
start → the connect QR decoded and the "Open wallet" link laid out, read in the page; round trips
are the longest chain of requests each sent after the previous one finished, before that moment.

| network | time to QR, median (min–max) | sequential round trips | the chain |
|---|---|---|---|
${rows.map((r) => `| ${r.name} | ${r.ms.toFixed(0)} ms (${r.min.toFixed(0)}–${r.max.toFixed(0)}) | ${r.trips} | ${r.chain} |`).join("\n")}
`,
);

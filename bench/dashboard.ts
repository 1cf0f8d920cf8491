/**
 * The host's dashboard's first screen on a slow phone (`npm run bench:dashboard`), measured as
 * bench/page.ts measures the customer's page: the devnet and `wrangler dev` on a free port, 30
 * onboardings created through the host API, a dashboard session signed in with a host key (its
 * cookie put in each fresh context), then `/dashboard/` loaded cold in Chromium at 390×844 with the
 * CPU slowed 4× and the network throttled to DevTools' Fast 3G and 4G profiles and not at all, the
 * profiles alternating load by load. The first screen is the list's first row laid out (the
 * session check and the host API's list answered). Writes docs/PERFORMANCE.md (section
 * "dashboard-first-screen").
 */
import { toBech32 } from "@cosmjs/encoding";
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { WRANGLER_OFFLINE_ENV } from "../scripts/offline-env.ts";
import { chromium } from "playwright-core";
import { chooseChromium } from "../test/e2e/helpers/chromium.ts";
import { freeLoopbackPort } from "../test/e2e/helpers/ports.ts";
import { measureFirstScreen, NETWORK_PROFILES, type FirstScreen } from "./lib/first-screen.ts";
import { startLocalStack } from "./lib/local-stack.ts";
import { writeReportSection } from "./lib/report.ts";
import { machine, percentile } from "./lib/stats.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const HOST_KEY = randomBytes(24).toString("hex");
const CPU_SLOWDOWN = 4;
const VIEWPORT = { width: 390, height: 844 };
const load = loadavg()[0]!.toFixed(1);

const choice = await chooseChromium();
// The index's tables (the list, the dashboard's sessions) in the state the server starts on.
const persistTo = mkdtempSync(join(tmpdir(), "chain-edge-dashboard-"));
execFileSync("wrangler", ["d1", "migrations", "apply", "ONBOARDING_INDEX", "--local", "--persist-to", persistTo], {
  env: { ...process.env, ...WRANGLER_OFFLINE_ENV },
  stdio: "ignore",
});
const stack = await startLocalStack({ port: await freeLoopbackPort(), vars: { HOST_API_KEYS: HOST_KEY }, persistTo });
const base = stack.worker.url;
const browser = await chromium.launch({ executablePath: choice.executablePath, args: choice.args, headless: true });
const results = new Map<string, FirstScreen[]>();
try {
  const { bech32_prefix } = (await (await fetch(`${base}/api/config`)).json()) as { bech32_prefix: string };
  for (let i = 0; i < 30; i++) {
    const created = await fetch(`${base}/api/onboardings`, {
      method: "POST",
      headers: { authorization: `Bearer ${HOST_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({
        operator: toBech32(bech32_prefix, randomBytes(20)),
        label: `node ${i}`,
        reference: `o-${i}`,
      }),
    });
    if (created.status !== 201) throw new Error(`creating an onboarding answered ${created.status}`);
  }
  const signIn = await fetch(`${base}/dashboard/sign-in`, {
    method: "POST",
    headers: { origin: base },
    body: new URLSearchParams({ key: HOST_KEY }),
  });
  if (signIn.status !== 200) throw new Error(`signing in answered ${signIn.status}`);
  const [name, value] = signIn.headers.get("set-cookie")!.split(";")[0]!.split("=") as [string, string];
  const screen = { selectors: [".onboardings .row"], cookies: [{ name, value, url: base }] };
  const url = `${base}/dashboard/`;
  // One warm-up load, untimed: wrangler dev compiles and starts the Worker on the first requests.
  await measureFirstScreen(browser, url, NETWORK_PROFILES.at(-1)!, 1, VIEWPORT, screen);
  for (let run = 0; run < RUNS; run++) {
    for (const profile of NETWORK_PROFILES) {
      const result = await measureFirstScreen(browser, url, profile, CPU_SLOWDOWN, VIEWPORT, screen);
      results.set(profile.name, [...(results.get(profile.name) ?? []), result]);
      console.log(
        `${profile.name.padEnd(12)} run ${run + 1}: ${result.msToQr.toFixed(0)} ms (${result.chain.join(" → ")})`,
      );
    }
  }
} finally {
  await browser.close();
  await stack.stop();
}

const rows = NETWORK_PROFILES.map((profile) => {
  const runs = results.get(profile.name)!;
  const ms = runs.map((r) => r.msToQr).sort((a, b) => a - b);
  const trips = percentile(
    runs.map((r) => r.roundTrips).sort((a, b) => a - b),
    50,
  );
  const chain = runs.find((r) => r.roundTrips === trips)?.chain.join(" → ") ?? "";
  return { profile: profile.name, ms: percentile(ms, 50), min: ms[0]!, max: ms.at(-1)!, trips, chain };
});
writeReportSection(
  "dashboard-first-screen",
  `## The dashboard's first screen

\`npm run bench:dashboard\` — one run on ${machine()} (load average ${load} at the start), against
\`wrangler dev\` with the devnet, measured as the customer's page above: Chromium (${choice.source}) at
${VIEWPORT.width}×${VIEWPORT.height}, CPU slowed ${CPU_SLOWDOWN}×, the same network profiles, each load cold (a new context with
the dashboard's session cookie only), ${RUNS} loads per row. The first screen is \`/dashboard/\` with
the list's first row laid out: the page (assets), its script and stylesheets, the session check
and the host API's list of 30 onboardings answered.

| network | time to the list, median (min–max) | sequential round trips | the chain |
|---|---|---|---|
${rows.map((r) => `| ${r.profile} | ${r.ms.toFixed(0)} ms (${r.min.toFixed(0)}–${r.max.toFixed(0)}) | ${r.trips} | ${r.chain} |`).join("\n")}
`,
);
for (const r of rows)
  console.log(`${r.profile}: ${r.ms.toFixed(0)} ms (${r.min.toFixed(0)}–${r.max.toFixed(0)}), ${r.trips} round trips`);

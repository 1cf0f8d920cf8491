/**
 * The onboarding page's first screen on a slow phone (`npm run bench:page [-- --against <rev>]`):
 * starts the devnet and `wrangler dev` on a free port, then loads the page cold in Chromium at
 * 390×844 with the CPU slowed 4× and the network throttled to DevTools' Fast 3G and 4G profiles
 * and not at all, the profiles alternating load by load, for both links a customer gets: a
 * self-hoster's (`/?operator=…`) and a host's onboarding (`/?onboarding=ob_…`, created through the
 * host API). Prints, per link and profile, the median time from navigation start to the connect QR
 * and "Open wallet" link on screen, the sequential round trips before it, and the first
 * response's size gzipped. With `--against <rev>`, that git revision runs too (from a temporary copy,
 * scripts/tree-copy.ts), its loads alternating with the working tree's, so both meet the same
 * machine load. Writes docs/PERFORMANCE.md (section "first-screen"). BENCH_DEBUG=1 prints each
 * load's requests.
 */
import { toBech32 } from "@cosmjs/encoding";
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { gzipSync } from "node:zlib";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { copyRevision, removeCopy } from "../scripts/tree-copy.ts";
import { chooseChromium } from "../test/e2e/helpers/chromium.ts";
import { freeLoopbackPort } from "../test/e2e/helpers/ports.ts";
import { measureFirstScreen, NETWORK_PROFILES, type FirstScreen } from "./lib/first-screen.ts";
import { startLocalStack, type LocalStack } from "./lib/local-stack.ts";
import { writeReportSection } from "./lib/report.ts";
import { machine, percentile } from "./lib/stats.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const HOST_KEY = randomBytes(24).toString("hex");
const VARS = { RATE_LIMITS: "off", HOST_API_KEYS: HOST_KEY };
/** The two links a customer opens. */
const LINKS = ["self-host", "onboarding"] as const;
type LinkKind = (typeof LINKS)[number];
const CPU_SLOWDOWN = 4;
const VIEWPORT = { width: 390, height: 844 };
const { values } = parseArgs({ options: { against: { type: "string" } } });

interface Variant {
  name: string;
  stack: LocalStack;
  copy?: string;
  /** The path of a host's onboarding on this variant's server. */
  onboarding?: string;
}

const git = (...args: string[]) => execFileSync("git", args, { encoding: "utf8" }).trim();
const choice = await chooseChromium();
const variants: Variant[] = [];
const load = loadavg()[0]!.toFixed(1);
try {
  if (values.against) {
    const copy = copyRevision(values.against);
    const short = git("rev-parse", "--short", values.against);
    variants.push({
      name: short === values.against ? short : `${short} (${values.against})`,
      copy,
      stack: await startLocalStack({ port: await freeLoopbackPort(), vars: VARS, cwd: copy }),
    });
  }
  variants.push({
    name: `working tree (${git("rev-parse", "--short", "HEAD")}${git("status", "--porcelain") ? ", modified" : ""})`,
    stack: await startLocalStack({ port: await freeLoopbackPort(), vars: VARS }),
  });
} catch (error) {
  await stopAll();
  throw error;
}

const browser = await chromium.launch({ executablePath: choice.executablePath, args: choice.args, headless: true });
const results = new Map<string, FirstScreen[]>();
const sizes = new Map<string, number>();
const key = (variant: Variant, link: LinkKind, profile: string) => `${variant.name}\n${link}\n${profile}`;
try {
  const settings = (await (await fetch(`${variants[0]!.stack.worker.url}/api/config`)).json()) as {
    bech32_prefix: string;
  };
  const operator = () => toBech32(settings.bech32_prefix, randomBytes(20));
  for (const variant of variants) {
    const created = await fetch(`${variant.stack.worker.url}/api/onboardings`, {
      method: "POST",
      headers: { authorization: `Bearer ${HOST_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ operator: operator(), label: "bench" }),
    });
    if (created.status !== 201)
      throw new Error(`creating an onboarding answered ${created.status}: ${await created.text()}`);
    const url = new URL(((await created.json()) as { url: string }).url);
    variant.onboarding = `${url.pathname}${url.search}`;
  }
  const url = (variant: Variant, link: LinkKind) =>
    `${variant.stack.worker.url}${link === "onboarding" ? variant.onboarding : `/?operator=${operator()}&label=bench`}`;
  for (const variant of variants) {
    for (const link of LINKS) {
      // What the first response weighs on the wire, gzipped as an edge would send it.
      sizes.set(
        `${variant.name}\n${link}`,
        gzipSync(Buffer.from(await (await fetch(url(variant, link))).arrayBuffer())).length,
      );
      // One warm-up load each, untimed: wrangler dev compiles and starts the Worker on the first requests.
      await measureFirstScreen(browser, url(variant, link), NETWORK_PROFILES.at(-1)!, 1, VIEWPORT);
    }
  }
  for (let run = 0; run < RUNS; run++) {
    for (const profile of NETWORK_PROFILES) {
      for (const link of LINKS) {
        for (const variant of variants) {
          const result = await measureFirstScreen(browser, url(variant, link), profile, CPU_SLOWDOWN, VIEWPORT);
          results.set(key(variant, link, profile.name), [
            ...(results.get(key(variant, link, profile.name)) ?? []),
            result,
          ]);
          console.log(
            `${profile.name.padEnd(12)} ${link.padEnd(10)} ${variant.name} run ${run + 1}: ${result.msToQr.toFixed(0)} ms, ${result.roundTrips} round trips (${result.chain.join(" → ")})`,
          );
        }
      }
    }
  }
} finally {
  await browser.close();
  await stopAll();
}

async function stopAll(): Promise<void> {
  for (const variant of variants) {
    await variant.stack.stop();
    if (variant.copy) removeCopy(variant.copy);
  }
}

const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
const rows = NETWORK_PROFILES.flatMap((profile) =>
  LINKS.flatMap((link) =>
    variants.map((variant) => {
      const runs = results.get(key(variant, link, profile.name))!;
      const ms = runs.map((r) => r.msToQr).sort((a, b) => a - b);
      const trips = median(runs.map((r) => r.roundTrips));
      const chain = runs.find((r) => r.roundTrips === trips)?.chain.join(" → ") ?? "";
      const kib = sizes.get(`${variant.name}\n${link}`)! / 1024;
      return {
        profile: profile.name,
        link,
        variant: variant.name,
        ms: median(ms),
        min: ms[0]!,
        max: ms.at(-1)!,
        trips,
        chain,
        kib,
      };
    }),
  ),
);
for (const r of rows)
  console.log(
    `${r.profile}, ${r.link}, ${r.variant}: time to QR ${r.ms.toFixed(0)} ms (min ${r.min.toFixed(0)}, max ${r.max.toFixed(0)}), ${r.trips} round trips: ${r.chain}; first response ${r.kib.toFixed(1)} KiB gzipped`,
  );
const ratios =
  variants.length === 2
    ? `\nWorking tree ÷ ${variants[0]!.name}, medians: ${NETWORK_PROFILES.flatMap((p) =>
        LINKS.map((link) => {
          const [before, after] = rows.filter((r) => r.profile === p.name && r.link === link);
          return `${p.name} ${link} ${(after!.ms / before!.ms).toFixed(2)}×`;
        }),
      ).join(", ")}.\n`
    : "";

writeReportSection(
  "first-screen",
  `## First screen

\`npm run bench:page${values.against ? ` -- --against ${values.against}` : ""}\` — one run on ${machine()} (load average ${load} at the start), against
\`wrangler dev\` with the devnet. Chromium (${choice.source}) at ${VIEWPORT.width}×${VIEWPORT.height}, CPU slowed ${CPU_SLOWDOWN}× and the network
throttled through the DevTools protocol (Fast 3G: 562.5 ms latency, 1.44 Mbit/s down; 4G: 165 ms,
8.1 Mbit/s), each load cold (new context: empty cache, new connections), ${RUNS} loads per row, the
rows alternating load by load. Two links: a self-hoster's (\`/?operator=…\`, a fresh operator per
load) and a host's onboarding (\`/?onboarding=ob_…\`, one created through the host API). Time to QR
is navigation start → the connect QR (SVG, or image decoded) and the "Open wallet" link laid out,
read in the page; round trips are the longest chain of requests each sent after the previous one
finished, before that moment; the first response is the document, gzipped (zlib's default level).

| network | link | page | time to QR, median (min–max) | sequential round trips | the chain | first response |
|---|---|---|---|---|---|---|
${rows.map((r) => `| ${r.profile} | ${r.link} | ${r.variant} | ${r.ms.toFixed(0)} ms (${r.min.toFixed(0)}–${r.max.toFixed(0)}) | ${r.trips} | ${r.chain} | ${r.kib.toFixed(1)} KiB |`).join("\n")}
${ratios}`,
);

/**
 * One cold load of the onboarding page in Chromium, timed to its first screen: from navigation
 * start to the connect QR (SVG, or an image decoded) and the "Open wallet" link laid out, read in the page
 * itself (a probe installed before any of the page's scripts), with the network and CPU
 * throttled through the DevTools protocol. Also counts the sequential round trips before that
 * moment, from the requests Chromium reports.
 */
import type { Browser, BrowserContext } from "playwright-core";

/** A network profile of Chromium's DevTools (latency in ms, throughput in bytes per second). */
export interface NetworkProfile {
  name: string;
  latencyMs: number;
  downloadBytesPerSecond: number;
  uploadBytesPerSecond: number;
}

/** DevTools' presets: "Fast 3G" (renamed "Slow 4G" in newer DevTools) and "Fast 4G"; null latency means no throttling. */
export const NETWORK_PROFILES: NetworkProfile[] = [
  {
    name: "Fast 3G",
    latencyMs: 562.5,
    downloadBytesPerSecond: ((1.6 * 1000 * 1000) / 8) * 0.9,
    uploadBytesPerSecond: ((750 * 1000) / 8) * 0.9,
  },
  {
    name: "4G",
    latencyMs: 165,
    downloadBytesPerSecond: ((9 * 1000 * 1000) / 8) * 0.9,
    uploadBytesPerSecond: ((1.5 * 1000 * 1000) / 8) * 0.9,
  },
  { name: "unthrottled", latencyMs: 0, downloadBytesPerSecond: -1, uploadBytesPerSecond: -1 },
];

/** What one load measured. */
export interface FirstScreen {
  /** Navigation start → QR decoded and link laid out, in ms. */
  msToQr: number;
  /** The longest chain of requests, each sent after the previous one's answer finished, before the QR. */
  roundTrips: number;
  /** That chain's requests, first to last (path only). */
  chain: string[];
}

interface Exchange {
  url: string;
  sent: number;
  done?: number;
}

/** The onboarding page's first screen: the connect QR (its first element, an image decoded) and the link. */
const PAGE_FIRST_SCREEN = ["#step-connect .qr", "#step-connect [data-testid='connect-link']"];

/**
 * Resolves `window.__firstScreen` with performance.now() once an element of each of `selectors` is
 * laid out (the page's: the QR as the document's inline SVG drawn by the Worker, or as the
 * script's image, decoded).
 */
function installProbe(selectors: string[]): void {
  const w = window as unknown as { __firstScreen: Promise<number> };
  w.__firstScreen = new Promise<number>((resolve) => {
    let seen = false;
    const look = () => {
      const found = selectors.map((selector) => document.querySelector<HTMLElement | SVGElement>(selector));
      const qr = found[0];
      if (seen || !qr || found.some((node) => !node || node.getBoundingClientRect().height === 0)) return;
      seen = true;
      const decoded = qr instanceof HTMLImageElement ? qr.decode() : Promise.resolve();
      // Decoded, then the next frame: the moment it can be painted.
      void decoded.then(() => requestAnimationFrame(() => resolve(performance.now())));
    };
    new MutationObserver(look).observe(document, { childList: true, subtree: true, attributes: true });
    // Laid out only once the stylesheet has applied: look again when the document has loaded.
    document.addEventListener("DOMContentLoaded", look);
  });
}

/**
 * Loads `url` once in a fresh context (cold cache, new connections) under `profile` and
 * `cpuSlowdown`, timed to `screen`'s elements (the onboarding page's by default), with its cookies.
 */
export async function measureFirstScreen(
  browser: Browser,
  url: string,
  profile: NetworkProfile,
  cpuSlowdown: number,
  viewport: { width: number; height: number },
  screen: { selectors: string[]; cookies?: Parameters<BrowserContext["addCookies"]>[0] } = {
    selectors: PAGE_FIRST_SCREEN,
  },
): Promise<FirstScreen> {
  const context = await browser.newContext({ viewport, locale: "en-US" });
  try {
    if (screen.cookies) await context.addCookies(screen.cookies);
    const page = await context.newPage();
    await page.addInitScript(installProbe, screen.selectors);
    const cdp = await context.newCDPSession(page);
    const exchanges = new Map<string, Exchange>();
    cdp.on("Network.requestWillBeSent", (event) => {
      if (!event.request.url.startsWith("data:"))
        exchanges.set(event.requestId, { url: event.request.url, sent: event.timestamp });
    });
    cdp.on("Network.loadingFinished", (event) => {
      const exchange = exchanges.get(event.requestId);
      if (exchange) exchange.done = event.timestamp;
    });
    await cdp.send("Network.enable");
    if (profile.latencyMs > 0) {
      await cdp.send("Network.emulateNetworkConditions", {
        offline: false,
        latency: profile.latencyMs,
        downloadThroughput: profile.downloadBytesPerSecond,
        uploadThroughput: profile.uploadBytesPerSecond,
      });
    }
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: cpuSlowdown });
    await page.goto(url, { waitUntil: "commit" });
    const msToQr = await page.evaluate(() => (window as unknown as { __firstScreen: Promise<number> }).__firstScreen);
    const all = [...exchanges.values()];
    const navigation = Math.min(...all.map((e) => e.sent));
    const qrAt = navigation + msToQr / 1000;
    if (process.env.BENCH_DEBUG)
      for (const e of all)
        console.log(
          `  ${new URL(e.url).pathname} sent ${((e.sent - navigation) * 1000).toFixed(0)} done ${e.done === undefined ? "-" : ((e.done - navigation) * 1000).toFixed(0)}`,
        );
    const { depth, chain } = longestChain(all.filter((e) => e.sent < qrAt && e.done !== undefined && e.done <= qrAt));
    return { msToQr, roundTrips: depth, chain };
  } finally {
    await context.close();
  }
}

/** The longest chain of exchanges where each was sent after the one before it had finished. */
function longestChain(exchanges: Exchange[]): { depth: number; chain: string[] } {
  const bySent = [...exchanges].sort((a, b) => a.sent - b.sent);
  const best = new Map<Exchange, { depth: number; previous: Exchange | null }>();
  for (const exchange of bySent) {
    let entry = { depth: 1, previous: null as Exchange | null };
    for (const before of bySent) {
      const known = best.get(before);
      if (!known || before.done! > exchange.sent) continue;
      // On a tie, the one that finished last is what this request waited for.
      if (known.depth + 1 > entry.depth || (known.depth + 1 === entry.depth && before.done! > entry.previous!.done!))
        entry = { depth: known.depth + 1, previous: before };
    }
    best.set(exchange, entry);
  }
  let last: Exchange | null = null;
  for (const [exchange, entry] of best) {
    const lead = last && best.get(last)!.depth;
    if (!last || entry.depth > lead! || (entry.depth === lead && exchange.done! > last.done!)) last = exchange;
  }
  const chain: string[] = [];
  for (let at = last; at; at = best.get(at)!.previous) chain.unshift(new URL(at.url).pathname);
  return { depth: last ? best.get(last)!.depth : 0, chain };
}

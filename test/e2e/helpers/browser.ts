/**
 * Real headless Chromium (the one helpers/chromium.ts chose) through playwright-core, with a
 * guard on every page: each request is routed and recorded, anything leaving the server's origin
 * is blocked and reported, and console errors, page errors and CSP violations are collected for
 * the test to assert on. One browser process serves a whole test file; each page gets a browser
 * context of its own, a fresh profile that shares nothing (cookies, storage, cache) with another.
 */
import { chromium, type Browser as Chromium, type BrowserContext, type Page } from "playwright-core";
import { afterAll, inject } from "vitest";

export const PHONE = { width: 360, height: 740 };
export const DESKTOP = { width: 1280, height: 900 };
/** Phones as their browsers present themselves: a touch screen (`pointer: coarse`) and a mobile viewport. */
export const TOUCH = { hasTouch: true, isMobile: true };

/** What happened on a page that the tests forbid. */
export interface Guard {
  /** The server's origin: the only one the page may reach. */
  origin: string;
  requests: string[];
  offOrigin: string[];
  problems: string[];
  webSockets: string[];
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  guard: Guard;
  close(): Promise<void>;
}

let launched: Promise<Chromium> | undefined;

/** The test file's browser process, started on first use (about a second) and closed after the file. */
function fileBrowser(): Promise<Chromium> {
  const { executablePath, args } = inject("chromium");
  launched ??= chromium.launch({ executablePath, args, headless: true });
  return launched;
}

afterAll(async () => {
  const browser = launched;
  launched = undefined;
  await (await browser)?.close();
});

/**
 * A fresh browser context (its own profile) with one guarded page, for the server at `base` (the
 * suite's by default); `javaScriptEnabled: false` runs none of the page's scripts;
 * `deviceScaleFactor` draws CSS pixels as a phone's denser screen does; `hasTouch` and
 * `isMobile` (TOUCH) make it a phone, whose touch screen matches `pointer: coarse`.
 */
export async function openBrowser(
  viewport: { width: number; height: number },
  init?: (page: Page) => Promise<void>,
  options: {
    javaScriptEnabled?: boolean;
    base?: string;
    deviceScaleFactor?: number;
    hasTouch?: boolean;
    isMobile?: boolean;
  } = {},
): Promise<Browser> {
  const origin = new URL(options.base ?? inject("baseUrl")).origin;
  const context = await (await fileBrowser()).newContext({
    viewport,
    permissions: ["clipboard-read", "clipboard-write"],
    locale: "en-US",
    timezoneId: "UTC",
    javaScriptEnabled: options.javaScriptEnabled ?? true,
    deviceScaleFactor: options.deviceScaleFactor ?? 1,
    hasTouch: options.hasTouch ?? false,
    isMobile: options.isMobile ?? false,
  });
  const guard: Guard = { origin, requests: [], offOrigin: [], problems: [], webSockets: [] };
  await context.route("**/*", (route) => {
    const url = route.request().url();
    guard.requests.push(`${route.request().method()} ${url}`);
    if (new URL(url).origin !== origin) {
      guard.offOrigin.push(url);
      return route.abort("blockedbyclient");
    }
    return route.continue();
  });
  const page = await context.newPage();
  // A wait for a page's answer only stops a stuck test: a wallet simulator's process and a block can take
  // longer than Playwright's 30 s on a loaded two-core machine (a stress run missed it once).
  page.setDefaultTimeout(90_000);
  page.on("console", (message) => {
    if (message.type() !== "error" && message.type() !== "warning") return;
    // A node not registered yet is the node's own 404, which the page's step-3 watch reads as "not yet".
    if (/status of 404/.test(message.text()) && /\/incentives\/v1\/node\/[^/]+$/.test(message.location().url)) return;
    // So is a transaction no block holds yet: the page's transaction watch reads it as "pending".
    if (
      /status of 404/.test(message.text()) &&
      /\/cosmos\/tx\/v1beta1\/txs\/[0-9A-Fa-f]{64}$/.test(message.location().url)
    )
      return;
    guard.problems.push(`console ${message.type()}: ${message.text()} (${message.location().url})`);
  });
  page.on("pageerror", (error) => guard.problems.push(`page error: ${error.message}`));
  page.on("websocket", (socket) => guard.webSockets.push(socket.url()));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) =>
      console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`),
    );
  });
  if (init) await init(page);
  return {
    context,
    page,
    guard,
    async close() {
      await context.close();
    },
  };
}

/** Fails unless the page stayed on its origin (requests and WebSockets) and logged no error. */
export function assertClean(guard: Guard): void {
  const origin = new URL(guard.origin);
  const foreignSockets = guard.webSockets.filter((url) => new URL(url).host !== origin.host);
  const faults = [
    ...guard.offOrigin.map((url) => `request left the origin: ${url}`),
    ...foreignSockets.map((url) => `WebSocket left the origin: ${url}`),
    ...guard.problems,
  ];
  if (faults.length > 0) throw new Error(faults.join("\n"));
}

/**
 * Saves a full-page screenshot under test-results/screenshots/ (ignored by git), and under
 * docs/screenshots/ (the README's pictures) when UPDATE_SCREENSHOTS=1 (`npm run screenshots`).
 */
export async function screenshot(
  page: Page,
  name: string,
  what: "full page" | "first screen" = "full page",
): Promise<void> {
  const dir = process.env.UPDATE_SCREENSHOTS === "1" ? "docs/screenshots" : "test-results/screenshots";
  // "first screen": the viewport as the visitor first sees it (a full-page capture of a phone also drops its touch
  // emulation).
  await page.screenshot({ path: `${dir}/${name}.png`, fullPage: what === "full page" });
}

/**
 * The first screen's layout, decided by the device in the first response (media queries, never
 * the user agent): on a phone's touch screen the host's name, the node, one sentence and "Open
 * wallet" are all inside the first viewport, with JavaScript on and off, and the QR comes after
 * the button; on a desktop the QR comes first, inside the first viewport, then the button.
 */
import type { Locator, Page } from "playwright-core";
import { afterEach, describe, expect, inject, it } from "vitest";
import { assertClean, openBrowser, screenshot, TOUCH, type Browser } from "./helpers/browser.ts";
import { freshAddress, serverContext } from "./helpers/chain.ts";
import { createOnboarding, nodeOperators } from "./helpers/host.ts";

const base = inject("baseUrl");
const ctx = await serverContext();
const operators = await nodeOperators(ctx);
let browser: Browser | undefined;

afterEach(async () => {
  await browser?.close();
  browser = undefined;
});

/** A label a page must escape, long enough to wrap on a small phone. */
const LABEL = "rack <3> & “north”";
const HOST = "hosting.example";

const LINKS: [string, () => Promise<string>, string][] = [
  ["a host's onboarding link", hostedLink, "onboarding-summary"],
  [
    "a self-hoster's link",
    async () => `/?operator=${freshAddress(ctx)}&label=${encodeURIComponent(LABEL)}`,
    "node-summary",
  ],
];

async function hostedLink(): Promise<string> {
  const onboarding = await createOnboarding({
    operator: operators[2]!,
    label: LABEL,
    return_url: `https://${HOST}/orders/7`,
  });
  return `/${new URL(onboarding.url).search}`;
}

/** Opens `path` as a phone (touch, mobile viewport) or a desktop; with JavaScript, once its script took step 1 over. */
async function open(path: string, viewport: { width: number; height: number }, phone: boolean, script: boolean) {
  browser = await openBrowser(viewport, undefined, { javaScriptEnabled: script, ...(phone ? TOUCH : {}) });
  await browser.page.goto(`${base}${path}`);
  if (script) await browser.page.getByRole("button", { name: "Cancel" }).waitFor();
  return browser.page;
}

/** The element's box, in the coordinates of the first viewport (the page is not scrolled). */
async function box(locator: Locator) {
  const found = await locator.boundingBox();
  if (!found) throw new Error("not laid out");
  return found;
}

async function insideFirstViewport(page: Page, locator: Locator): Promise<boolean> {
  const { x, y, width, height } = await box(locator);
  const viewport = page.viewportSize()!;
  expect(await page.evaluate(() => window.scrollY)).toBe(0);
  return x >= 0 && y >= 0 && x + width <= viewport.width && y + height <= viewport.height;
}

describe("the first screen, phone first on a phone and QR first on a desktop", () => {
  for (const [name, link, summaryId] of LINKS) {
    for (const viewport of [
      { width: 390, height: 844 },
      { width: 360, height: 640 },
    ]) {
      for (const script of [false, true]) {
        it(
          `${name} on a ${viewport.width}×${viewport.height} phone, JavaScript ${script ? "on" : "off"}: who asks, ` +
            "the node, one sentence and “Open wallet” fit the first screen; the QR comes after",
          async () => {
            const page = await open(await link(), viewport, true, script);
            expect(await page.evaluate(() => matchMedia("(pointer: coarse)").matches)).toBe(true);
            const summary = page.getByTestId(summaryId);
            expect(await summary.textContent()).toContain(`“${LABEL}”`);
            if (summaryId === "onboarding-summary") expect(await summary.textContent()).toContain(HOST);
            const button = page.getByTestId("connect-link");
            expect(await button.textContent()).toBe("Open wallet");
            for (const part of [
              page.locator("h1"),
              summary.locator("p").first(),
              page.locator(".connect-lead"),
              button,
            ])
              expect(await insideFirstViewport(page, part)).toBe(true);
            expect((await box(page.locator("#step-connect svg.qr"))).y).toBeGreaterThan((await box(button)).y);
            if (script && viewport.width === 390 && summaryId === "onboarding-summary")
              await screenshot(page, "phone-first-screen", "first screen");
            assertClean(browser!.guard);
          },
        );
      }
    }
  }

  for (const [name, link] of LINKS) {
    for (const script of [false, true]) {
      it(
        `${name} on a 1280×800 desktop, JavaScript ${script ? "on" : "off"}: the QR and its caption come first, ` +
          "inside the first screen; the button second",
        async () => {
          const page = await open(await link(), { width: 1280, height: 800 }, false, script);
          expect(await page.evaluate(() => matchMedia("(pointer: coarse)").matches)).toBe(false);
          const qr = page.locator("#step-connect svg.qr");
          expect(await insideFirstViewport(page, qr)).toBe(true);
          expect(await page.locator("#step-connect figcaption").textContent()).toContain(
            "Scan this code with your wallet app.",
          );
          expect(await page.locator(".connect-lead").isVisible()).toBe(false);
          expect((await box(page.getByTestId("connect-link"))).y).toBeGreaterThan((await box(qr)).y);
          if (script && name === LINKS[0]![0]) await screenshot(page, "desktop-first-screen", "first screen");
          assertClean(browser!.guard);
        },
      );
    }
  }
});

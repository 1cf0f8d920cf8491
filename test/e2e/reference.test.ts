/** The API reference page in Chromium: every operation of /api/openapi.json, rendered under the page's CSP. */
import { afterEach, describe, expect, inject, it } from "vitest";
import { assertClean, DESKTOP, openBrowser, PHONE, screenshot, type Browser } from "./helpers/browser.ts";

const base = inject("baseUrl");
let browser: Browser | undefined;

afterEach(async () => {
  await browser?.close();
  browser = undefined;
});

describe("API reference page", () => {
  it("lists every operation of the OpenAPI document, on a phone and a desktop", async () => {
    const doc = (await (await fetch(`${base}/api/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`),
    );
    for (const [viewport, name] of [
      [PHONE, "phone-reference"],
      [DESKTOP, "desktop-reference"],
    ] as const) {
      browser = await openBrowser(viewport);
      const { page } = browser;
      await page.goto(`${base}/reference/`);
      await expect.poll(() => page.locator("article.operation").count()).toBe(operations.length);
      const headings = await page.locator("article.operation h3").allTextContents();
      expect(headings.sort()).toEqual([...operations].sort());
      expect(await page.title()).toMatch(/^API reference: /);
      await screenshot(page, name);
      assertClean(browser.guard);
      await browser.close();
      browser = undefined;
    }
  });
});

/**
 * The page's first screen in Chromium: the session create leaves with the document, beside
 * app.js rather than after it (two round trips before the QR instead of four), the page shows
 * that very session, and it never asks for `/api/config`.
 */
import { afterEach, describe, expect, inject, it } from "vitest";
import { parseDeepLink, type ConnectPayload } from "../../src/protocol/index.ts";
import { assertClean, openBrowser, PHONE, type Browser } from "./helpers/browser.ts";
import { freshAddress, serverContext } from "./helpers/chain.ts";

const base = inject("baseUrl");
const ctx = await serverContext();
let browser: Browser | undefined;

afterEach(async () => {
  await browser?.close();
  browser = undefined;
});

/** The page at `path` with app.js held back until `release()`, and the session creates it sends. */
async function openHoldingAppJs(path: string) {
  browser = await openBrowser(PHONE);
  const { page } = browser;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route("**/app.js", async (route) => {
    await released;
    await route.continue();
  });
  const creates: string[] = [];
  page.on("request", (request) => {
    if (request.method() === "POST" && request.url().endsWith(`/api/${ctx.walletPath}/sessions`)) creates.push(request.postData() ?? "");
  });
  await page.goto(`${base}${path}`, { waitUntil: "commit" });
  return { b: browser, page, creates, release };
}

describe("the page's first screen", () => {
  it("sends the session create before app.js has arrived, then shows that session's QR", async () => {
    const { b, page, creates, release } = await openHoldingAppJs(`/?operator=${freshAddress(ctx)}&label=rack-1`);
    await expect.poll(() => creates.length).toBe(1);
    const sent = JSON.parse(creates[0]!) as { session_id: string };
    release();

    const link = (await page.getByTestId("connect-link").getAttribute("href"))!;
    await page.locator("#step-connect img.qr").waitFor();
    const payload = parseDeepLink(link).payload as ConnectPayload;
    expect(payload.session_id).toBe(sent.session_id);
    expect(payload.relay_url).toBe(`${base}/api/${ctx.walletPath}/sessions/${sent.session_id}/confirm`);
    expect(creates).toHaveLength(1);
    expect(b.guard.requests.filter((r) => r.includes("/api/config"))).toEqual([]);
    assertClean(b.guard);
  });

  it("sends no session create for a link without a valid operator, and shows the form", async () => {
    const { b, page, creates, release } = await openHoldingAppJs("/?operator=not-an-address");
    release();
    await page.getByLabel("Node operator address").waitFor();
    expect(creates).toEqual([]);
    assertClean(b.guard);
  });
});

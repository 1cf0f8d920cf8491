/**
 * The page's first screen in Chromium, for a self-hoster's link and a host's onboarding link: the
 * first response itself carries step 1 (the connect link and its QR, of a signed session), so it
 * works with JavaScript off: the QR as the browser draws it decodes to the link, and the wallet's
 * relayed confirm is accepted. With JavaScript on, the script takes that very session over:
 * no session create, its push channel, and the wallet's confirm shows the paired address.
 */
import jsQR from "jsqr";
import type { Page } from "playwright-core";
import { afterEach, describe, expect, inject, it } from "vitest";
import { parseDeepLink, type ConnectPayload } from "../../src/protocol/index.ts";
import { assertClean, openBrowser, PHONE, type Browser } from "./helpers/browser.ts";
import { freshAddress, serverContext } from "./helpers/chain.ts";
import { createOnboarding, nodeOperators } from "./helpers/host.ts";
import { connectedAddress, runWallet } from "./helpers/wallet.ts";

const base = inject("baseUrl");
const ctx = await serverContext();
const operators = await nodeOperators(ctx);
let browser: Browser | undefined;

afterEach(async () => {
  await browser?.close();
  browser = undefined;
});

const LINKS: [string, () => Promise<string>][] = [
  ["a self-hoster's link", async () => `/?operator=${freshAddress(ctx)}&label=rack-1`],
  [
    "a host's onboarding link",
    async () =>
      new URL((await createOnboarding({ operator: operators[3]!, label: "rack-first" })).url).search.replace(/^/, "/"),
  ],
];

/** Opens `path` and records the session creates the page sends and every document it was answered. */
async function open(path: string, javaScriptEnabled: boolean) {
  // A phone's screen draws 2 or 3 pixels per CSS pixel: the QR is read as a camera reads it there.
  browser = await openBrowser(PHONE, undefined, { javaScriptEnabled, deviceScaleFactor: 2 });
  const { page } = browser;
  const creates: string[] = [];
  page.on("request", (request) => {
    if (request.method() === "POST" && request.url().endsWith(`/api/${ctx.walletPath}/sessions`))
      creates.push(request.url());
  });
  await page.goto(`${base}${path}`);
  return { b: browser, page, creates };
}

/** What the QR on screen says: a screenshot of it, decoded by jsQR from its pixels. */
async function qrOnScreen(page: Page): Promise<string | null> {
  const png = await page.locator("#step-connect svg.qr").screenshot();
  const { data, width, height } = await page.evaluate(async (base64) => {
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const bitmap = await createImageBitmap(new Blob([bytes], { type: "image/png" }));
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const context = canvas.getContext("2d")!;
    context.drawImage(bitmap, 0, 0);
    // The pixels as base64: a plain array of a million numbers would take seconds to pass over.
    const pixels = context.getImageData(0, 0, bitmap.width, bitmap.height).data;
    let binary = "";
    for (let i = 0; i < pixels.length; i += 0x8000) binary += String.fromCharCode(...pixels.subarray(i, i + 0x8000));
    return { data: btoa(binary), width: bitmap.width, height: bitmap.height };
  }, png.toString("base64"));
  // jsqr is CommonJS: under Node its default import is module.exports, whose `default` is the function.
  return jsQR.default(new Uint8ClampedArray(Buffer.from(data, "base64")), width, height)?.data ?? null;
}

async function sessionRow(sessionId: string): Promise<Record<string, unknown>> {
  return (await fetch(`${base}/api/${ctx.walletPath}/sessions/${sessionId}`)).json();
}

describe("the page's first screen, in its first response", () => {
  for (const [name, path] of LINKS) {
    it(
      `${name}, JavaScript off: the QR and the link are there, the QR decodes to the link, and the wallet's ` +
        "relayed confirm is accepted",
      async () => {
        const opened = await path();
        const { b, page, creates } = await open(opened, false);
        const link = (await page.getByTestId("connect-link").getAttribute("href"))!;
        expect(link).toMatch(new RegExp(`^${ctx.walletScheme}://connect\\?p=`));
        expect(await page.getByTestId("connect-link").isVisible()).toBe(true);
        const payload = parseDeepLink(link).payload as ConnectPayload;
        // A host's onboarding page names its onboarding in the relay URL: the session is signed for it.
        const onboarding = new URLSearchParams(opened.slice(1)).get("onboarding");
        const bound = onboarding === null ? "" : `?onboarding=${onboarding}`;
        expect(payload.relay_url).toBe(`${base}/api/${ctx.walletPath}/sessions/${payload.session_id}/confirm${bound}`);

        // The wallet first: the suite's sessions live 25 s, which a loaded machine's screenshot and decode could use
        // up.
        const payout = connectedAddress(await runWallet("--seed", `no-script-${Date.now()}`, link));
        expect(await qrOnScreen(page)).toBe(link);
        expect(await sessionRow(payload.session_id)).toMatchObject({
          status: "connected",
          address: payout,
          expires_at: payload.expires_at,
        });
        expect(creates).toEqual([]);
        // Nothing but the document was needed: no stylesheet, no API request.
        expect(b.guard.requests.filter((r) => /\/api\/|styles\.css/.test(r))).toEqual([]);
        assertClean(b.guard);
      },
    );

    it(
      `${name}, JavaScript on: the script takes the document's session over without creating one, and shows the ` +
        "wallet the confirm paired",
      async () => {
        const { b, page, creates } = await open(await path(), true);
        const link = (await page.getByTestId("connect-link").getAttribute("href"))!;
        const { session_id: sessionId } = parseDeepLink(link).payload as ConnectPayload;
        // Taken over: the script's Cancel button beside the document's own QR and link.
        await page.getByRole("button", { name: "Cancel" }).waitFor();
        expect(await page.getByTestId("connect-link").getAttribute("href")).toBe(link);
        // The document's own QR element, not one the script drew again.
        expect(await page.locator("#step-connect svg.qr").count()).toBe(1);
        expect(await page.locator("#step-connect [data-testid='connect-qr']").count()).toBe(1);
        expect(await qrOnScreen(page)).toBe(link);
        // A host's onboarding page names its onboarding there too (`?onboarding=`).
        await expect.poll(() => b.guard.webSockets.some((url) => url.includes(`/sessions/${sessionId}`))).toBe(true);

        const payout = connectedAddress(await runWallet("--seed", `script-${Date.now()}`, link));
        await expect.poll(() => page.getByTestId("paired-address").textContent()).toBe(payout);
        expect(creates).toEqual([]);
        assertClean(b.guard);
      },
    );
  }

  it("carries no session for a link without a valid operator; the script shows the form", async () => {
    const { b, page, creates } = await open("/?operator=not-an-address", true);
    await page.getByLabel("Node operator address").waitFor();
    expect(await page.locator("#step-connect svg.qr").count()).toBe(0);
    expect(creates).toEqual([]);
    assertClean(b.guard);
  });
});

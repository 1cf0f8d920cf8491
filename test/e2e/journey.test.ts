/**
 * The customer's whole journey, walked as a customer would on a 390×844 and a 360×640 phone (touch)
 * and on a desktop: at every step the active step's action is inside the first screen, without a
 * hand on the scroll (the page brings each newly active step into view), finished steps fold to one
 * line that opens, and at the end the outcome and "Back to <host>" come first. A customer who is
 * scrolling is left where they are. Each step's screen is saved under docs/screenshots/ by
 * `npm run screenshots` (test-results/screenshots/ otherwise).
 */
import type { Locator, Page } from "playwright-core";
import { afterEach, describe, expect, inject, it } from "vitest";
import { assertClean, openBrowser, screenshot, TOUCH, type Browser } from "./helpers/browser.ts";
import { recordAuthorization, serverContext } from "./helpers/chain.ts";
import { applyOnNode, createOnboarding, nodeOperators } from "./helpers/host.ts";
import { connectedAddress, runWallet } from "./helpers/wallet.ts";

const base = inject("baseUrl");
const ctx = await serverContext();
const operators = await nodeOperators(ctx);
const HOST = "127.0.0.1";
let browser: Browser | undefined;

afterEach(async () => {
  await browser?.close();
  browser = undefined;
});

const DEVICES = [
  { name: "phone-390", viewport: { width: 390, height: 844 }, touch: true },
  { name: "phone-360", viewport: { width: 360, height: 640 }, touch: true },
  { name: "desktop", viewport: { width: 1280, height: 800 }, touch: false },
] as const;
type Device = (typeof DEVICES)[number];

async function open(device: Device, path: string, reducedMotion = false): Promise<Page> {
  browser = await openBrowser(device.viewport, undefined, device.touch ? TOUCH : {});
  if (reducedMotion) await browser.page.emulateMedia({ reducedMotion: "reduce" });
  await browser.page.goto(`${base}${path}`);
  return browser.page;
}

/** True while the element's whole box is inside the viewport as it stands now (scrolled or not). */
async function inView(page: Page, locator: Locator): Promise<boolean> {
  const box = await locator.boundingBox();
  if (!box) return false;
  const viewport = page.viewportSize()!;
  return box.y >= 0 && box.x >= 0 && box.y + box.height <= viewport.height && box.x + box.width <= viewport.width;
}

/** Waits until every part is inside the first screen (the page scrolls smoothly), then saves the screen. */
async function firstScreenShows(page: Page, parts: Locator[], picture: string): Promise<void> {
  for (const part of parts) {
    await part.waitFor();
    await expect.poll(() => inView(page, part), { timeout: 20_000 }).toBe(true);
  }
  await screenshot(page, picture, "first screen");
}

/** A finished step: one line with what was done and its key value, whose body opens and closes on a tap. */
async function foldedTo(page: Page, stepId: string, line: RegExp, inside: string): Promise<void> {
  const toggle = page.locator(`#${stepId} button.step-line`);
  await expect.poll(() => toggle.textContent()).toMatch(line);
  const body = page.locator(`#${stepId} .body`);
  expect(await body.isVisible()).toBe(false);
  expect(await toggle.getAttribute("aria-expanded")).toBe("false");
  await toggle.click();
  expect(await page.getByTestId(inside).isVisible()).toBe(true);
  expect(await toggle.getAttribute("aria-expanded")).toBe("true");
  await toggle.click();
  expect(await body.isVisible()).toBe(false);
}

describe("the journey, step by step, the next action first", () => {
  for (const device of DEVICES) {
    it(`a host's onboarding on ${device.name}: connect, sign, the host's wait, the outcome, the way back`, async () => {
      const operator = operators[5]!;
      const created = await createOnboarding({ operator, label: "rack-j", return_url: `http://${HOST}/orders/9` });
      const page = await open(device, `/${new URL(created.url).search}`);
      const connect = page.getByTestId("connect-link");
      await firstScreenShows(page, [connect], `journey-${device.name}-1-connect`);
      if (!device.touch) expect(await inView(page, page.locator("#step-connect svg.qr"))).toBe(true);

      const payout = connectedAddress(
        await runWallet("--seed", `journey-${Date.now()}`, (await connect.getAttribute("href"))!),
      );
      // Authorize: the sign action first, on a phone above its dense QR; on a desktop the QR too.
      const sign = page.getByTestId("sign-link");
      const signParts = device.touch ? [sign] : [page.locator("#step-authorize svg.qr"), sign];
      await firstScreenShows(page, signParts, `journey-${device.name}-2-authorize`);
      if (device.touch)
        expect((await page.locator("#step-authorize svg.qr").boundingBox())!.y).toBeGreaterThan(
          (await sign.boundingBox())!.y,
        );
      await foldedTo(
        page,
        "step-connect",
        new RegExp(`Connected: ${payout.slice(0, 7)}…${payout.slice(-4)}`),
        "paired-address",
      );

      expect(await recordAuthorization(payout, operator)).toBeLessThan(300);
      await firstScreenShows(page, [page.getByTestId("progress-waiting")], `journey-${device.name}-3-host-applies`);
      await foldedTo(page, "step-authorize", /Authorized: block \d+/, "authorize-done");

      await applyOnNode(ctx, operator, payout);
      const outcome = page.getByTestId("outcome");
      await firstScreenShows(page, [outcome, page.getByTestId("back-to-host")], `journey-${device.name}-4-applied`);
      expect(await outcome.textContent()).toMatch(new RegExp(`^Your node now pays ${payout} \\(height \\d+\\)\\.$`));
      expect(await page.getByTestId("back-to-host").textContent()).toBe(`Back to ${HOST}`);
      assertClean(browser!.guard);
    });

    it(`a self-hoster on ${device.name}: the update-node command and its copy button, then the outcome`, async () => {
      const operator = operators[1]!;
      const page = await open(device, `/?operator=${operator}&label=own`);
      const connect = page.getByTestId("connect-link");
      await firstScreenShows(page, [connect], `journey-self-${device.name}-1-connect`);
      const payout = connectedAddress(
        await runWallet("--seed", `own-${Date.now()}`, (await connect.getAttribute("href"))!),
      );
      await firstScreenShows(page, [page.getByTestId("sign-link")], `journey-self-${device.name}-2-authorize`);

      expect(await recordAuthorization(payout, operator)).toBeLessThan(300);
      const command = page.locator("#update-node-command");
      await firstScreenShows(
        page,
        [command, page.getByRole("button", { name: "Copy update-node command" })],
        `journey-self-${device.name}-3-apply`,
      );
      expect(await command.textContent()).toContain(`--payout-recipient ${payout}`);
      await foldedTo(
        page,
        "step-authorize",
        new RegExp(`Authorized: ${operator.slice(0, 7)}…${operator.slice(-4)}`),
        "authorize-done",
      );

      await applyOnNode(ctx, operator, payout);
      await firstScreenShows(page, [page.getByTestId("outcome")], `journey-self-${device.name}-4-applied`);
      assertClean(browser!.guard);
    });
  }

  it("JavaScript off, on both phones: the first response leads with “Open wallet”", async () => {
    for (const device of DEVICES.filter((d) => d.touch)) {
      browser = await openBrowser(device.viewport, undefined, { ...TOUCH, javaScriptEnabled: false });
      const created = await createOnboarding({ operator: operators[5]!, label: "rack-j" });
      await browser.page.goto(`${base}/${new URL(created.url).search}`);
      expect(await inView(browser.page, browser.page.getByTestId("connect-link"))).toBe(true);
      await browser.close();
      browser = undefined;
    }
  });

  it("leaves a customer who is scrolling where they are, and brings the next step once they stop", async () => {
    // The small phone: the page can scroll as soon as step 2 becomes active, so a reveal would show.
    const device = DEVICES[1];
    const operator = operators[1]!;
    // Reduced motion: the page scrolls at once, without the smooth glide.
    const page = await open(device, `/?operator=${operator}&label=own`, true);
    const connect = page.getByTestId("connect-link");
    await connect.waitFor();
    const wallet = runWallet("--seed", `reader-${Date.now()}`, (await connect.getAttribute("href"))!);
    // The customer keeps reading the top of the page (wheel turns upwards) until step 2 is active and whole.
    const sign = page.getByTestId("sign-link");
    while ((await sign.count()) === 0) await page.mouse.wheel(0, -2);
    const payout = connectedAddress(await wallet);
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    expect(await page.evaluate(() => window.scrollY)).toBe(0);

    // Once the customer has stopped for the reading window, the next active step comes to the top at once.
    const stopped = await page.evaluate(() => performance.now());
    await page.waitForFunction((since) => performance.now() - since > 4000, stopped);
    expect(await recordAuthorization(payout, operator)).toBeLessThan(300);
    const apply = page.locator("#step-apply");
    await expect.poll(() => apply.getAttribute("data-state"), { timeout: 60_000 }).toBe("active");
    const top = (await apply.boundingBox())!.y;
    expect(top).toBeGreaterThanOrEqual(0);
    expect(top).toBeLessThan(16);
    assertClean(browser!.guard);
  });
});

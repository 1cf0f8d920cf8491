/**
 * The pairing is bound on the server, tried as a phone does it: the customer opens the host's
 * onboarding link, taps "Open wallet", and the browser drops the tab while the wallet app is open.
 * The wallet's relayed confirm alone (the wallet simulator, as `npm run wallet` runs it) connects
 * the onboarding and sends `onboarding.connected`; opened again, the page shows the next step
 * (authorize), with no new session and no pairing at all.
 */
import { afterEach, describe, expect, inject, it } from "vitest";
import { parseDeepLink, type ConnectPayload } from "../../src/protocol/index.ts";
import { assertClean, openBrowser, PHONE, type Browser } from "./helpers/browser.ts";
import { freshAddress, serverContext } from "./helpers/chain.ts";
import { createOnboarding, hostOnboarding, verifiedEvents } from "./helpers/host.ts";
import { connectedAddress, runWallet } from "./helpers/wallet.ts";

const base = inject("baseUrl");
const ctx = await serverContext();
const opened: Browser[] = [];

afterEach(async () => {
  for (const browser of opened.splice(0)) await browser.close();
});

/** Opens the onboarding's page on a phone, recording the session requests it sends. */
async function open(id: string) {
  const browser = await openBrowser(PHONE);
  opened.push(browser);
  const sessionRequests: string[] = [];
  browser.page.on("request", (request) => {
    if (request.url().includes(`/api/${ctx.walletPath}/sessions`))
      sessionRequests.push(`${request.method()} ${request.url()}`);
  });
  await browser.page.goto(`${base}/?onboarding=${id}`);
  return { browser, page: browser.page, sessionRequests };
}

describe("a host's onboarding on a phone whose browser drops the tab", () => {
  it("is connected by the wallet's confirm alone, and a reload shows the next step and pairs nothing new", async () => {
    const created = await createOnboarding({ operator: freshAddress(ctx), label: "rack-reload" });
    const first = await open(created.id);
    const link = (await first.page.getByTestId("connect-link").getAttribute("href"))!;
    // The tab is gone before the wallet answers: nothing of the page takes part from here on.
    await first.browser.close();

    const payout = connectedAddress(await runWallet("--seed", `reload-${Date.now()}`, link));
    expect(await hostOnboarding(created.id)).toMatchObject({ status: "connected", payout, payout_source: "relay" });
    await expect
      .poll(async () => (await verifiedEvents(created.id)).map((e) => e.type))
      .toContain("onboarding.connected");

    const again = await open(created.id);
    await again.page.getByTestId("sign-link").waitFor();
    expect(await again.page.getByTestId("paired-address").textContent()).toBe(payout);
    // No new pairing: the document carries no session, and the page asks for none.
    expect(await again.page.locator("#first-session").textContent()).toBe("");
    expect(await again.page.getByTestId("connect-link").count()).toBe(0);
    expect(again.sessionRequests).toEqual([]);
    expect(again.browser.guard.webSockets.filter((url) => url.includes("/sessions/"))).toEqual([]);
    assertClean(again.browser.guard);
  });

  it("is bound by the page's next session too, once the document's has expired", async () => {
    const created = await createOnboarding({ operator: freshAddress(ctx), label: "rack-next" });
    const { browser, page } = await open(created.id);
    const firstLink = (await page.getByTestId("connect-link").getAttribute("href"))!;
    await page
      .getByRole("alert")
      .filter({ hasText: "expired" })
      .waitFor({ timeout: (inject("sessionTtlSeconds") + 30) * 1000 });
    await page.getByRole("button", { name: "Start again" }).click();
    await expect.poll(() => page.getByTestId("connect-link").getAttribute("href")).not.toBe(firstLink);
    const link = (await page.getByTestId("connect-link").getAttribute("href"))!;
    const relay = (parseDeepLink(link).payload as ConnectPayload).relay_url;
    expect(new URL(relay).searchParams.get("onboarding")).toBe(created.id);
    await browser.close();

    const payout = connectedAddress(await runWallet("--seed", `next-${Date.now()}`, link));
    expect(await hostOnboarding(created.id)).toMatchObject({ status: "connected", payout, payout_source: "relay" });
  });
});

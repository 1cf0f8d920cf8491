/**
 * The customer's page of a host's onboarding end to end: the host creates the onboarding with its
 * API key, the customer opens its url in real Chromium (the wallet played by the simulator, or by
 * the fake wallet app of helpers/in-app.ts), the operator applies the payout with MsgUpdateNode on
 * the devnet, and the page follows the server through `applied`; the host's webhook receiver gets
 * each verified step, signed as Standard Webhooks says.
 */
import { afterEach, describe, expect, inject, it } from "vitest";
import { buildAuthorizeOperator, parseDeepLink, type SignRequest } from "../../src/protocol/index.ts";
import { assertClean, openBrowser, PHONE, screenshot, type Browser } from "./helpers/browser.ts";
import { freshAddress, serverContext } from "./helpers/chain.ts";
import {
  applyOnNode,
  cancelOnboarding,
  createOnboarding,
  hostOnboarding,
  hostPage,
  nodeOperators,
  verifiedEvents,
  type HostOnboarding,
} from "./helpers/host.ts";
import { installFakeApp, type AppRecord, type FakeApp } from "./helpers/in-app.ts";
import { connectedAddress, runWallet } from "./helpers/wallet.ts";

const base = inject("baseUrl");
const ctx = await serverContext();
const operators = await nodeOperators(ctx);
/** Where the host wants its customer back; loopback http is allowed in the local profile. */
const RETURN_URL = "http://127.0.0.1/onboarded?order=42";
let browser: Browser | undefined;

afterEach(async () => {
  await browser?.close();
  browser = undefined;
});

/** The page path of an onboarding's url, on the server under test. */
const pathOf = (onboarding: HostOnboarding) => {
  const url = new URL(onboarding.url);
  return `${url.pathname}${url.search}`;
};

async function open(path: string, init?: Parameters<typeof openBrowser>[1]): Promise<Browser> {
  browser = await openBrowser(PHONE, init);
  await browser.page.goto(`${base}${path}`);
  return browser;
}

async function openInApp(path: string, app: FakeApp): Promise<{ b: Browser; record: AppRecord }> {
  let record: AppRecord | undefined;
  const b = await open(path, async (page) => void (record = await installFakeApp(page, app)));
  return { b, record: record! };
}

/** The host's onboarding once its status is `status` (the service moves it on the chain's word). */
async function hostOnboardingAt(id: string, status: string): Promise<HostOnboarding> {
  await expect.poll(async () => (await hostOnboarding(id)).status).toBe(status);
  return hostOnboarding(id);
}

/** The text of the element with `testId` once it shows. */
async function textOf(b: Browser, testId: string, timeout = 60_000): Promise<string> {
  const locator = b.page.getByTestId(testId);
  // Attached, not visible: a finished step folds to one line, its sentences hidden until opened.
  await locator.waitFor({ state: "attached", timeout });
  return (await locator.textContent())!;
}

/** What a hosted customer never sees: commands, node fields, the sweep. */
async function expectNoCommands(b: Browser): Promise<void> {
  for (const selector of ["#update-node-command", "#payout-line", "#sweep-command", "#key-name", "#container"])
    expect(await b.page.locator(selector).count()).toBe(0);
  expect(await b.page.locator("#step-sweep").isVisible()).toBe(false);
}

describe("a host's onboarding page in Chromium", () => {
  it(
    "by QR and relay: connect, authorize, the host applies, the page shows applied with the height; the webhooks " +
      "arrive signed",
    async () => {
      const operator = operators[2]!;
      const created = await createOnboarding({
        operator,
        label: "rack-c-3",
        reference: "customer-42",
        return_url: RETURN_URL,
      });
      expect(created.url).toBe(`${base}/?onboarding=${created.id}`);
      const b = await open(pathOf(created));
      const { page } = b;
      expect(await textOf(b, "onboarding-operator")).toBe(operator);
      expect(await textOf(b, "onboarding-summary")).toContain("“rack-c-3”");
      expect(await textOf(b, "onboarding-summary")).not.toContain("customer-42");

      const payout = connectedAddress(
        await runWallet(
          "--seed",
          `hosted-${Date.now()}`,
          (await page.getByTestId("connect-link").getAttribute("href"))!,
        ),
      );
      // The paired address, large, with what to check, before anything uses it; the server has it from the relayed
      // session.
      await expect.poll(() => page.getByTestId("paired-address").textContent()).toBe(payout);
      expect(await textOf(b, "check-address")).toMatch(/^Check that this is the address your wallet shows\./);
      const connected = await hostOnboardingAt(created.id, "connected");
      expect(connected).toMatchObject({ payout, payout_source: "relay" });
      await screenshot(page, "phone-hosted-connected");

      const signLink = (await page.getByTestId("sign-link").getAttribute("href"))!;
      const request = parseDeepLink(signLink).payload as SignRequest;
      expect(request.transaction.messages).toEqual([
        buildAuthorizeOperator(ctx, { payoutRecipient: payout, operator, label: "rack-c-3" }),
      ]);
      await runWallet(signLink);

      const authorized = await hostOnboardingAt(created.id, "authorized");
      expect(await textOf(b, "progress-authorized")).toBe(
        `Authorized on chain at height ${authorized.authorization.height}.`,
      );
      expect(await textOf(b, "progress-waiting")).toBe("Waiting for your host to apply it…");
      expect(await page.getByTestId("back-to-host").count()).toBe(0);
      await expectNoCommands(b);
      await screenshot(page, "phone-hosted-waiting");

      // The host's agent runs what it received: here the operator's MsgUpdateNode on the devnet.
      const included = await applyOnNode(ctx, operator, payout);
      const applied = await hostOnboardingAt(created.id, "applied");
      expect(applied.node.height).toBeGreaterThanOrEqual(included);
      expect(await textOf(b, "node-applied")).toBe(`Your node now pays ${payout} (height ${applied.node.height}).`);
      expect(await page.locator("#step-apply .state").textContent()).toBe("Done");
      const back = page.getByTestId("back-to-host");
      expect(await back.textContent()).toBe("Back to 127.0.0.1");
      expect(await back.getAttribute("href")).toBe(RETURN_URL);
      await expectNoCommands(b);
      await screenshot(page, "phone-hosted-applied");

      // Opened again later, the page shows where the onboarding stands, from the server alone.
      const again = await openBrowser(PHONE);
      try {
        await again.page.goto(`${base}${pathOf(created)}`);
        expect(await textOf(again, "node-applied")).toBe(
          `Your node now pays ${payout} (height ${applied.node.height}).`,
        );
        expect(await again.page.getByTestId("paired-address").textContent()).toBe(payout);
        expect(await again.page.getByTestId("connect-link").count()).toBe(0);
        assertClean(again.guard);
      } finally {
        await again.close();
      }

      // Pushed over the view's WebSocket, on this origin.
      expect(b.guard.webSockets.some((url) => url.endsWith(`/api/onboarding-pages/${created.id}`))).toBe(true);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
      assertClean(b.guard);

      // The host heard each verified step, in order, each signature checked by the standardwebhooks package.
      await expect
        .poll(async () => (await verifiedEvents(created.id)).map((e) => e.type))
        .toEqual(["onboarding.connected", "onboarding.authorized", "onboarding.applied"]);
      const events = await verifiedEvents(created.id);
      expect(new Set(events.map((e) => e.webhookId)).size).toBe(3);
      expect(events[1]!.data).toMatchObject({ status: "authorized", payout, reference: "customer-42" });
      expect(events[1]!.data.commands?.update_node).toContain(`--payout-recipient ${payout} `);
      expect(events[2]!.data).toMatchObject({ status: "applied", node: { payout_recipient: payout } });

      // The index the server's own migrations made: the list finds it by the host's reference, the feed has the same
      // events in order.
      await expect
        .poll(async () => (await hostPage("/api/onboardings?reference=customer-42")).data.map((o) => o.status))
        .toEqual(["applied"]);
      expect((await hostPage("/api/onboardings?reference=customer-42")).data).toEqual([
        await hostOnboarding(created.id),
      ]);
      const feed = await hostPage<{ id: string; type: string }>(`/api/events?onboarding=${created.id}`);
      expect(feed.data.map((e) => [e.id, e.type])).toEqual(events.map((e) => [e.webhookId, e.type]));
    },
  );

  it(
    "inside the wallet app: the payout from requestConnect (in_app), the requestSign hash reported, through " +
      "applied",
    async () => {
      const operator = operators[3]!;
      const payout = freshAddress(ctx);
      const created = await createOnboarding({ operator, label: "rack-d-4", return_url: RETURN_URL });
      const { b, record } = await openInApp(pathOf(created), {
        bridge: "now",
        activeAddress: payout,
        connect: () => ({ address: payout, accountLabel: "Main account" }),
        signer: payout,
      });
      const { page } = b;
      await page.getByRole("button", { name: "Connect with this wallet" }).click();
      await expect.poll(() => page.getByTestId("paired-address").textContent()).toBe(payout);
      expect(await hostOnboardingAt(created.id, "connected")).toMatchObject({ payout, payout_source: "in_app" });

      const reported = page.waitForResponse((response) =>
        response.url().endsWith(`/api/onboarding-pages/${created.id}/authorization`),
      );
      await page.getByRole("button", { name: "Sign in your wallet app" }).click();
      expect((await reported).status()).toBe(200);
      const reportedHash = ((await (await reported).request().postDataJSON()) as { txhash: string }).txhash;
      expect(record.signs).toHaveLength(1);
      const authorized = await hostOnboardingAt(created.id, "authorized");
      expect(await textOf(b, "progress-authorized")).toBe(
        `Authorized on chain at height ${authorized.authorization.height}.`,
      );
      expect(authorized.authorization.txhash?.toUpperCase()).toBe(reportedHash.toUpperCase());

      await applyOnNode(ctx, operator, payout);
      const applied = await hostOnboardingAt(created.id, "applied");
      expect(await textOf(b, "node-applied")).toBe(`Your node now pays ${payout} (height ${applied.node.height}).`);
      expect(await page.getByTestId("back-to-host").getAttribute("href")).toBe(RETURN_URL);
      await expectNoCommands(b);
      await screenshot(page, "phone-hosted-in-app-applied");
      assertClean(b.guard);
    },
  );

  it("says plainly why it stopped when the wallet app signed with another account (409 SIGNER_MISMATCH)", async () => {
    const operator = freshAddress(ctx);
    const payout = freshAddress(ctx);
    const other = freshAddress(ctx);
    const created = await createOnboarding({ operator, return_url: RETURN_URL });
    const { b } = await openInApp(pathOf(created), {
      bridge: "now",
      connect: () => ({ address: payout }),
      // The app signs with another of its accounts: the wallet makes that account the payout recipient.
      // It reports the hash once a block holds the transaction, so the service's lookup finds it at once.
      sign: async () => {
        const messages = [buildAuthorizeOperator(ctx, { payoutRecipient: other, operator })];
        const response = await fetch(`${inject("devnetUrl")}/__devnet/txs?wait=block`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ signer: other, messages }),
        });
        return { txhash: ((await response.json()) as { tx_response: { txhash: string } }).tx_response.txhash };
      },
    });
    await b.page.getByRole("button", { name: "Connect with this wallet" }).click();
    await hostOnboardingAt(created.id, "connected");
    const reported = b.page.waitForResponse((response) =>
      response.url().endsWith(`/api/onboarding-pages/${created.id}/authorization`),
    );
    await b.page.getByRole("button", { name: "Sign in your wallet app" }).click();
    const refusal = await reported;
    expect(refusal.status()).toBe(409);
    const { message } = (await refusal.json()) as { message: string };
    // The refusal's own words, even when the server's push told the page first.
    await expect
      .poll(() => b.page.getByTestId("onboarding-ended").textContent())
      .toBe(`${message.replace(/[.!?]+$/, "")}.`);
    expect(await b.page.locator("#steps").isVisible()).toBe(false);
    expect(await b.page.getByTestId("back-to-host").getAttribute("href")).toBe(RETURN_URL);
    expect((await hostOnboarding(created.id)).problem?.reason).toBe("SIGNER_MISMATCH");
    await screenshot(b.page, "phone-hosted-signer-mismatch");
    // The server's 409 is the one console error this test expects.
    expect(b.guard.problems.every((p) => /status of 409/.test(p))).toBe(true);
    expect(b.guard.offOrigin).toEqual([]);
  });

  it("keeps the host's operator and label whatever the query string says", async () => {
    const operator = freshAddress(ctx);
    const created = await createOnboarding({ operator, label: "host-label" });
    const other = freshAddress(ctx);
    const b = await open(`${pathOf(created)}&operator=${other}&label=customer-label`);
    expect(await textOf(b, "onboarding-operator")).toBe(operator);
    const payout = connectedAddress(
      await runWallet(
        "--seed",
        `query-${Date.now()}`,
        (await b.page.getByTestId("connect-link").getAttribute("href"))!,
      ),
    );
    await expect.poll(() => b.page.getByTestId("operator-address").textContent()).toBe(operator);
    const request = parseDeepLink((await b.page.getByTestId("sign-link").getAttribute("href"))!).payload as SignRequest;
    expect(request.transaction.messages).toEqual([
      buildAuthorizeOperator(ctx, { payoutRecipient: payout, operator, label: "host-label" }),
    ]);
    expect(await b.page.content()).not.toContain(other);
    expect(await b.page.content()).not.toContain("customer-label");
    assertClean(b.guard);
  });

  it("says so when the host cancels while the page is open, and when a cancelled onboarding is opened", async () => {
    const created = await createOnboarding({ operator: freshAddress(ctx), return_url: RETURN_URL });
    let b = await open(pathOf(created));
    await b.page.getByTestId("connect-link").waitFor();
    await cancelOnboarding(created.id);
    const sentence = "Your host cancelled this onboarding. There is nothing more to do here.";
    expect(await textOf(b, "onboarding-ended")).toBe(sentence);
    expect(await b.page.locator("#steps").isVisible()).toBe(false);
    expect(await b.page.getByTestId("back-to-host").textContent()).toBe("Back to 127.0.0.1");
    await screenshot(b.page, "phone-hosted-cancelled");
    assertClean(b.guard);
    await b.close();

    b = browser = await open(pathOf(created));
    expect(await textOf(b, "onboarding-ended")).toBe(sentence);
    expect(await b.page.locator("#steps").isVisible()).toBe(false);
    expect(await b.page.getByTestId("connect-link").count()).toBe(0);
    assertClean(b.guard);
  });

  it("polls the view when its WebSocket fails, and still learns of the cancel", async () => {
    const created = await createOnboarding({ operator: freshAddress(ctx) });
    const b = await open(pathOf(created), async (page) => {
      // The push channel fails at once, as behind a proxy that drops WebSockets.
      await page.routeWebSocket(/\/api\/onboarding-pages\//, (socket) => socket.close({ code: 1011, reason: "proxy" }));
    });
    await b.page.getByTestId("connect-link").waitFor();
    const viewReads = () =>
      b.guard.requests.filter((r) => r === `GET ${base}/api/onboarding-pages/${created.id}`).length;
    await expect.poll(viewReads).toBeGreaterThan(1);
    await cancelOnboarding(created.id);
    expect(await textOf(b, "onboarding-ended")).toBe(
      "Your host cancelled this onboarding. There is nothing more to do here.",
    );
    assertClean(b.guard);
  });

  it("says the link is not valid for an onboarding the server does not know, or an id that is not one", async () => {
    const sentence =
      "This onboarding link is not valid. Check that you opened the whole link your host sent you, or ask your host " +
      "for a new one.";
    let b = await open(`/?onboarding=ob_${"0".repeat(32)}`);
    expect(await textOf(b, "onboarding-ended")).toBe(sentence);
    expect(await b.page.locator("#steps").isVisible()).toBe(false);
    expect(await b.page.locator("#start").isVisible()).toBe(false);
    // The server's 404 is the one console error here.
    expect(b.guard.problems.every((p) => /status of 404/.test(p))).toBe(true);
    await screenshot(b.page, "phone-hosted-invalid");
    await b.close();

    b = browser = await open("/?onboarding=not-an-id&operator=whatever");
    expect(await textOf(b, "onboarding-ended")).toBe(sentence);
    expect(b.guard.requests.some((r) => r.includes("/api/onboarding-pages/"))).toBe(false);
    assertClean(b.guard);
  });
});

/**
 * The onboarding page end to end: real Chromium against `wrangler dev` and the devnet, the wallet
 * played by the simulator (`scripts/wallet.ts`). Screenshots of each step land in docs/screenshots/.
 */
import { afterEach, describe, expect, inject, it } from "vitest";
import { buildPayoutRecipientLine, buildUpdateNodeCommand } from "../../src/commands/node-commands.ts";
import { buildSweep, DEFAULT_FEE_RESERVE } from "../../src/commands/sweep.ts";
import { buildAuthorizeOperator } from "../../src/messages/incentives.ts";
import { parseDeepLink } from "../../src/signing/deep-links.ts";
import type { ConnectPayload } from "../../src/signing/connect-payload.ts";
import type { SignRequest } from "../../src/signing/sign-request.ts";
import { assertClean, DESKTOP, openBrowser, PHONE, screenshot, type Browser } from "./helpers/browser.ts";
import { devnetAuthorizations, freshAddress, recordAuthorization, serverContext } from "./helpers/chain.ts";
import { connectedAddress, runWallet } from "./helpers/wallet.ts";

const base = inject("baseUrl");
const ctx = await serverContext();
let browser: Browser | undefined;

afterEach(async () => {
  await browser?.close();
  browser = undefined;
});

async function open(viewport = PHONE, path = "/", init?: Parameters<typeof openBrowser>[1]) {
  browser = await openBrowser(viewport, init);
  await browser.page.goto(`${base}${path}`);
  return browser;
}

const onboardingPath = (operator: string, extra = "") => `/?operator=${operator}&label=rack-b-7${extra}`;

async function connectLinkOf(b: Browser): Promise<string> {
  return (await b.page.getByTestId("connect-link").getAttribute("href"))!;
}

describe("onboarding page in Chromium", () => {
  it("walks the whole flow on a phone: form, connect, authorize, apply, sweep", async () => {
    const operator = freshAddress(ctx);
    const b = await open(PHONE, "/");
    const { page } = b;

    await page.getByLabel("Node operator address").fill("not-an-address");
    await page.getByRole("button", { name: "Continue" }).click();
    await expect.poll(() => page.locator("#operator-error").textContent()).toMatch(/bech32|start with/);
    await page.getByLabel("Node operator address").fill(operator);
    await page.getByLabel("Label (optional)").fill("rack-b-7");
    await screenshot(page, "phone-0-form");
    await page.getByRole("button", { name: "Continue" }).click();

    // Step 1: QR drawn in the page, "Open wallet" carries the connect deep link.
    const link = await connectLinkOf(b);
    const parsed = parseDeepLink(link);
    expect(parsed.scheme).toBe(ctx.walletScheme);
    expect(parsed.action).toBe("connect");
    const payload = parsed.payload as ConnectPayload;
    expect(payload.chain_id).toBe(ctx.chainId);
    expect(payload.relay_url).toBe(`${base}/api/${ctx.walletPath}/sessions/${payload.session_id}/confirm`);
    expect(await page.locator("#step-connect img.qr").getAttribute("src")).toMatch(/^data:image\/gif;base64,/);
    await screenshot(page, "phone-1-connect");

    const payout = connectedAddress(await runWallet("--seed", `phone-${Date.now()}`, link));
    await expect.poll(() => page.getByTestId("paired-address").textContent()).toBe(payout);

    // Step 2: both addresses side by side, then the MsgAuthorizeOperator sign request.
    expect(await page.getByTestId("payout-address").textContent()).toBe(payout);
    expect(await page.getByTestId("operator-address").textContent()).toBe(operator);
    const signLink = (await page.getByTestId("sign-link").getAttribute("href"))!;
    const request = parseDeepLink(signLink).payload as SignRequest;
    expect(request.id).toMatch(/^pl_[0-9a-f]{32}$/);
    expect(request.chain_id).toBe(ctx.chainId);
    expect(request.account_hint).toBe(payout);
    expect(request.origin.url).toBe(base);
    expect(request.transaction.messages).toEqual([buildAuthorizeOperator(ctx, { payoutRecipient: payout, operator, label: "rack-b-7" })]);
    expect(await page.locator("#step-authorize img.qr").count()).toBe(1);
    await screenshot(page, "phone-2-authorize");

    expect(await runWallet(signLink)).toMatch(/^authorized: /m);
    await page.getByTestId("authorize-done").waitFor();
    expect(await devnetAuthorizations()).toContainEqual(expect.objectContaining({ payout_recipient: payout, operator, label: "rack-b-7" }));

    // Step 3: the exact environment line and command, each copyable.
    const command = buildUpdateNodeCommand(ctx, { operator, payoutRecipient: payout, keyName: "operator" });
    expect(await page.locator("#payout-line").textContent()).toBe(buildPayoutRecipientLine(ctx, { operator, payoutRecipient: payout }));
    expect(await page.locator("#update-node-command").textContent()).toBe(command);
    await page.getByRole("button", { name: "Copy update-node command" }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(command);
    await page.getByRole("button", { name: "Copy environment line" }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(`PAYOUT_RECIPIENT=${payout}`);
    await page.locator("#step-apply").scrollIntoViewIfNeeded();
    await screenshot(page, "phone-3-apply");

    // Step 4: the optional sweep keeps the fee reserve.
    await page.getByText("Sweep leftover operator balance to your payout address").click();
    await page.getByLabel("Operator balance").fill("1500000");
    const sweep = buildSweep(ctx, { operator, payoutRecipient: payout, balance: "1500000", feeReserve: DEFAULT_FEE_RESERVE, keyName: "operator" });
    await expect.poll(() => page.locator("#sweep-command").textContent()).toBe(sweep.command);
    await page.getByLabel("Fee reserve").fill("2000000");
    await expect.poll(() => page.locator("#step-sweep .error").textContent()).toMatch(/nothing to sweep/);
    await page.getByLabel("Fee reserve").fill(DEFAULT_FEE_RESERVE);
    await screenshot(page, "phone-4-sweep");

    // Readable at 360 px: nothing scrolls sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    expect(b.guard.webSockets.length).toBeGreaterThan(0);
    assertClean(b.guard);
  });

  it("walks the flow on a desktop, with key and container from the link", async () => {
    const operator = freshAddress(ctx);
    const b = await open(DESKTOP, onboardingPath(operator, "&key=node-key&container=node-1"));
    const { page } = b;
    await screenshot(page, "desktop-1-connect");
    const payout = connectedAddress(await runWallet("--seed", `desktop-${Date.now()}`, await connectLinkOf(b)));
    const signLink = (await page.getByTestId("sign-link").getAttribute("href"))!;
    await screenshot(page, "desktop-2-authorize");
    await runWallet(signLink);
    await page.getByTestId("authorize-done").waitFor();

    const command = buildUpdateNodeCommand(ctx, { operator, payoutRecipient: payout, keyName: "node-key", container: "node-1" });
    expect(await page.locator("#update-node-command").textContent()).toBe(command);
    expect(command.startsWith("docker exec node-1 ")).toBe(true);
    await screenshot(page, "desktop-3-apply");

    // A hostile container name never reaches the command.
    await page.getByLabel("Container name (optional)").fill("node-1; rm -rf /");
    await expect.poll(() => page.locator("#container-error").textContent()).toMatch(/container name/);
    expect(await page.locator("#update-node-command").count()).toBe(0);
    await page.getByLabel("Container name (optional)").fill("");
    await expect.poll(() => page.locator("#update-node-command").textContent()).toBe(
      buildUpdateNodeCommand(ctx, { operator, payoutRecipient: payout, keyName: "node-key" }),
    );
    assertClean(b.guard);
  });

  it("skips the authorization when the payout address is the operator", async () => {
    const operator = freshAddress(ctx);
    const b = await open(PHONE, onboardingPath(operator));
    await runWallet("--address", operator, await connectLinkOf(b));
    await expect.poll(() => b.page.getByTestId("authorize-skipped").textContent()).toMatch(/no authorization is needed/);
    expect(await b.page.getByTestId("sign-link").count()).toBe(0);
    expect(await b.page.locator("#step-authorize .state").textContent()).toBe("Skipped");
    expect(await b.page.locator("#update-node-command").textContent()).toContain(`--payout-recipient ${operator} `);
    await screenshot(b.page, "phone-2-skipped");
    expect((await devnetAuthorizations()).some((a) => a.operator === operator)).toBe(false);
    assertClean(b.guard);
  });

  it("counts an authorization that already exists as success, before and while signing", async () => {
    const payout = freshAddress(ctx);
    const operator = freshAddress(ctx);
    expect(await recordAuthorization(payout, operator)).toBe(201);
    let b = await open(PHONE, onboardingPath(operator));
    await runWallet("--address", payout, await connectLinkOf(b));
    await expect.poll(() => b.page.getByTestId("authorize-done").textContent()).toMatch(/already authorized/);
    expect(await b.page.getByTestId("sign-link").count()).toBe(0);
    assertClean(b.guard);
    await b.close();

    // Signed elsewhere after the page asked: the wallet's ErrAuthorizationExists is success too.
    const second = freshAddress(ctx);
    b = browser = await open(PHONE, onboardingPath(second));
    await runWallet("--address", payout, await connectLinkOf(b));
    const signLink = (await b.page.getByTestId("sign-link").getAttribute("href"))!;
    expect(await recordAuthorization(payout, second)).toBe(201);
    expect(await runWallet("--address", payout, signLink)).toMatch(/already authorized: .*counts as success/);
    await b.page.getByTestId("authorize-done").waitFor();
    assertClean(b.guard);
  });

  it("cancels a connection and starts a new one", async () => {
    const b = await open(PHONE, onboardingPath(freshAddress(ctx)));
    const first = parseDeepLink(await connectLinkOf(b)).payload as ConnectPayload;
    await b.page.getByRole("button", { name: "Cancel" }).click();
    await expect.poll(() => b.page.getByRole("alert").textContent()).toBe("You cancelled the connection.");
    const row = await (await fetch(`${base}/api/${ctx.walletPath}/sessions/${first.session_id}`)).json();
    expect(row.status).toBe("cancelled");
    await screenshot(b.page, "phone-failure-cancelled");
    await b.page.getByRole("button", { name: "Start again" }).click();
    const second = parseDeepLink(await connectLinkOf(b)).payload as ConnectPayload;
    expect(second.session_id).not.toBe(first.session_id);
    assertClean(b.guard);
  });

  it("says so when the wallet declines, and retries", async () => {
    const b = await open(PHONE, onboardingPath(freshAddress(ctx)));
    expect(await runWallet("--refuse", await connectLinkOf(b))).toMatch(/^declined/m);
    await expect.poll(() => b.page.getByRole("alert").textContent()).toBe("The connection was cancelled or declined in the wallet.");
    await b.page.getByRole("button", { name: "Start again" }).click();
    const payout = connectedAddress(await runWallet(await connectLinkOf(b)));
    await expect.poll(() => b.page.getByTestId("paired-address").textContent()).toBe(payout);
    assertClean(b.guard);
  });

  it("says so when the connection request expires, and retries", async () => {
    const b = await open(PHONE, onboardingPath(freshAddress(ctx)));
    await b.page.getByRole("alert").filter({ hasText: "expired" }).waitFor({ timeout: (inject("sessionTtlSeconds") + 30) * 1000 });
    expect(await b.page.getByRole("alert").textContent()).toBe("The connection request expired before the wallet answered.");
    await screenshot(b.page, "phone-failure-expired");
    await b.page.getByRole("button", { name: "Start again" }).click();
    await b.page.getByTestId("connect-link").waitFor();
    assertClean(b.guard);
  });

  it("says so when the sign request expires unsigned, and makes a new one", async () => {
    const b = await open(PHONE, onboardingPath(freshAddress(ctx)));
    await runWallet(await connectLinkOf(b));
    const first = parseDeepLink((await b.page.getByTestId("sign-link").getAttribute("href"))!).payload as SignRequest;
    await b.page.getByRole("alert").filter({ hasText: "expired" }).waitFor({ timeout: (inject("sessionTtlSeconds") + 30) * 1000 });
    expect(await b.page.getByRole("alert").textContent()).toBe("The signing request expired before the authorization appeared on the network.");
    await b.page.getByRole("button", { name: "Create a new request" }).click();
    const second = parseDeepLink((await b.page.getByTestId("sign-link").getAttribute("href"))!).payload as SignRequest;
    expect(second.id).not.toBe(first.id);
    await runWallet(`${(await b.page.getByTestId("sign-link").getAttribute("href"))!}`);
    await b.page.getByTestId("authorize-done").waitFor();
    assertClean(b.guard);
  });

  it("says so when the gateway is down, and retries", async () => {
    const payout = freshAddress(ctx);
    const fault = await (
      await fetch(`${inject("devnetUrl")}/__devnet/faults`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ prefix: `/${ctx.namespace}/incentives/v1/operator_authorizations/${payout}`, status: 503 }),
      })
    ).json();
    const b = await open(PHONE, onboardingPath(freshAddress(ctx)));
    // The browser logs failed fetches as console errors; this test expects exactly those.
    await runWallet("--address", payout, await connectLinkOf(b));
    await b.page.getByRole("alert").filter({ hasText: "gateway" }).waitFor();
    expect(await b.page.getByRole("alert").textContent()).toMatch(/^The network gateway answered with an error \(HTTP 5\d\d\)\. The page cannot check your authorization right now\.$/);
    await screenshot(b.page, "phone-failure-gateway");
    await fetch(`${inject("devnetUrl")}/__devnet/faults/${fault.id}`, { method: "DELETE" });
    await b.page.getByRole("button", { name: "Create a new request" }).click();
    await b.page.getByTestId("sign-link").waitFor();
    expect(b.guard.problems.every((p) => /Failed to load resource: the server responded with a status of 5\d\d/.test(p))).toBe(true);
    expect(b.guard.offOrigin).toEqual([]);
  });

  it("uses the wallet's in-app bridge instead of a QR code, and reports a refusal", async () => {
    const b = await open(PHONE, onboardingPath(freshAddress(ctx)), async (page) => {
      await page.addInitScript(() => {
        (window as { walletBridge?: unknown }).walletBridge = { version: 1, open: async () => ({ approved: false }) };
      });
    });
    await b.page.getByRole("button", { name: "Connect this wallet" }).waitFor();
    expect(await b.page.locator("img.qr").count()).toBe(0);
    await b.page.getByRole("button", { name: "Connect this wallet" }).click();
    await expect.poll(() => b.page.getByRole("alert").textContent()).toBe("Your wallet declined the connection.");
    assertClean(b.guard);
  });

  it("completes through the in-app bridge when the wallet approves", async () => {
    const operator = freshAddress(ctx);
    const payout = freshAddress(ctx);
    const opened: string[] = [];
    const b = await open(PHONE, onboardingPath(operator), async (page) => {
      await page.exposeFunction("simulatedWallet", async (link: string) => {
        opened.push(link);
        await runWallet("--address", payout, link);
      });
      await page.addInitScript(() => {
        const w = window as unknown as { walletBridge: unknown; simulatedWallet(link: string): Promise<void> };
        w.walletBridge = { version: 1, open: async (link: string) => (await w.simulatedWallet(link), { approved: true }) };
      });
    });
    await b.page.getByRole("button", { name: "Connect this wallet" }).click();
    await expect.poll(() => b.page.getByTestId("paired-address").textContent()).toBe(payout);
    await b.page.getByRole("button", { name: "Sign in this wallet" }).click();
    await b.page.getByTestId("authorize-done").waitFor();
    expect(opened.map((link) => parseDeepLink(link).action)).toEqual(["connect", "sign"]);
    assertClean(b.guard);
  });

  it("serves the page with a strict CSP and no inline code", async () => {
    const response = await fetch(`${base}/`);
    expect(response.headers.get("content-security-policy")).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    );
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("referrer-policy")).toBe("no-referrer");
    const html = await response.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/\sstyle=|<style/);
    expect(html).not.toMatch(/https?:\/\//);
  });
});

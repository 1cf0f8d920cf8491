/**
 * The onboarding page end to end: real Chromium against `wrangler dev` and the devnet, the wallet
 * played by the simulator (`scripts/wallet.ts`), and inside the wallet app by a fake web view of
 * the real shape (helpers/in-app.ts). Screenshots of each step land in docs/screenshots/.
 */
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { buildPayoutRecipientLine, buildUpdateNodeCommand, type NodeTarget } from "../../src/protocol/index.ts";
import { buildSweep, DEFAULT_SWEEP_RESERVE } from "../../src/protocol/index.ts";
import { buildAuthorizeOperator } from "../../src/protocol/index.ts";
import { decodeWalletPayload, deepLinkMessage, parseDeepLink } from "../../src/protocol/index.ts";
import type { ConnectPayload } from "../../src/protocol/index.ts";
import type { SignRequest } from "../../src/protocol/index.ts";
import type { Locator } from "playwright-core";
import { qrDrawing } from "../../src/protocol/qr-code.ts";
import { assertClean, DESKTOP, openBrowser, PHONE, screenshot, type Browser } from "./helpers/browser.ts";
import { devnetAuthorizations, freshAddress, recordAuthorization, serverContext } from "./helpers/chain.ts";
import { installFakeApp, type AppRecord, type FakeApp } from "./helpers/in-app.ts";
import { connectedAddress, runWallet } from "./helpers/wallet.ts";
import { startWranglerDev, type WranglerDev } from "./helpers/wrangler-dev.ts";

const base = inject("baseUrl");
const ctx = await serverContext();
const settings = (await (await fetch(`${base}/api/config`)).json()) as Record<string, string>;
/** The node target the page starts from: the server's defaults. */
const defaults: NodeTarget = {
  keyName: settings.node_key_name!,
  home: settings.node_home!,
  keyringBackend: settings.node_keyring_backend!,
  container: settings.node_container!,
};
let browser: Browser | undefined;

/**
 * Expiry is shown on a server of its own whose sessions (and so the page's sign requests) live
 * 10 s, the shortest SESSION_TTL_MAX_SECONDS allows, instead of the suite's 25 s: the same page, a
 * shorter wait. It starts now, while the tests before the expiry ones run.
 */
const SHORT_TTL_SECONDS = 10;
const shortLivedServer = startWranglerDev({
  UPSTREAM_URLS: inject("devnetUrl"),
  SESSION_TTL_MAX_SECONDS: String(SHORT_TTL_SECONDS),
  RATE_LIMITS: "off",
});
// A run filtered to other tests never awaits it; its failure is reported by the tests that do.
shortLivedServer.catch(() => undefined);
afterAll(async () => {
  await (await shortLivedServer.catch(() => null))?.stop();
});

afterEach(async () => {
  await browser?.close();
  browser = undefined;
});

async function open(viewport = PHONE, path = "/", init?: Parameters<typeof openBrowser>[1]) {
  browser = await openBrowser(viewport, init);
  await browser.page.goto(`${base}${path}`);
  return browser;
}

/** Opens the page inside a fake wallet app. */
async function openInApp(path: string, app: FakeApp): Promise<{ b: Browser; record: AppRecord }> {
  let record: AppRecord | undefined;
  const b = await open(PHONE, path, async (page) => void (record = await installFakeApp(page, app)));
  return { b, record: record! };
}

const onboardingPath = (operator: string, extra = "") => `/?operator=${operator}&label=rack-b-7${extra}`;

async function connectLinkOf(b: Browser): Promise<string> {
  return (await b.page.getByTestId("connect-link").getAttribute("href"))!;
}

async function signLinkOf(b: Browser): Promise<string> {
  return (await b.page.getByTestId("sign-link").getAttribute("href"))!;
}

/** The base64 the link carries in `p`: what the bridge takes and a small request's QR shows. */
const payloadOf = (link: string) => decodeURIComponent(link.split("?p=")[1]!);

/** A devnet fault (an injected answer) until `removeFault`. */
async function addFault(fault: Record<string, unknown>): Promise<{ id: number }> {
  const response = await fetch(`${inject("devnetUrl")}/__devnet/faults`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(fault),
  });
  return (await response.json()) as { id: number };
}

async function removeFault(fault: { id: number }): Promise<void> {
  await fetch(`${inject("devnetUrl")}/__devnet/faults/${fault.id}`, { method: "DELETE" });
}

/**
 * The text of `locator` once it is on the page (waiting as long as the page may poll the network); a finished step
 * folds to one line, so its sentences are there but hidden until opened.
 */
async function shown(locator: Locator): Promise<string | null> {
  await locator.waitFor({ state: "attached" });
  return locator.textContent();
}

async function sessionStatus(sessionId: string): Promise<string> {
  const row = (await (await fetch(`${base}/api/${ctx.walletPath}/sessions/${sessionId}`)).json()) as { status: string };
  return row.status;
}

describe("onboarding page in Chromium", () => {
  it("walks the whole flow on a phone: form, connect, authorize from another phone's scan, apply, sweep", async () => {
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

    // Step 1: the connect QR is the connect deep link, which "Open wallet" carries too.
    const link = await connectLinkOf(b);
    const parsed = parseDeepLink(link);
    expect(parsed.scheme).toBe(ctx.walletScheme);
    expect(parsed.action).toBe("connect");
    const payload = parsed.payload as ConnectPayload;
    expect(payload.chain_id).toBe(ctx.chainId);
    expect(payload.relay_url).toBe(`${base}/api/${ctx.walletPath}/sessions/${payload.session_id}/confirm`);
    // The QR is the document's own (first-screen.test.ts reads it back from the screen).
    expect(await page.locator("#step-connect svg.qr").count()).toBe(1);
    await screenshot(page, "phone-1-connect");

    const payout = connectedAddress(await runWallet("--seed", `phone-${Date.now()}`, link));
    await expect.poll(() => page.getByTestId("paired-address").textContent()).toBe(payout);

    // Step 2: both addresses side by side, then the MsgAuthorizeOperator sign request in the wallet's format.
    expect(await page.getByTestId("payout-address").textContent()).toBe(payout);
    expect(await page.getByTestId("operator-address").textContent()).toBe(operator);
    const signLink = await signLinkOf(b);
    const request = parseDeepLink(signLink).payload as SignRequest;
    expect(request.id).toMatch(/^pl_[0-9a-f]{32}$/);
    expect(request).not.toHaveProperty("session_id");
    expect(request).not.toHaveProperty("v");
    expect(request.chain_id).toBe(ctx.chainId);
    expect(request.account_hint).toBe(payout);
    expect(request.origin.url).toBe(base);
    expect(request.preview.title.trim()).not.toBe("");
    expect(request.preview.messages).toEqual([
      expect.objectContaining({
        type: "MsgAuthorizeOperator",
        from: payout,
        to: operator,
        summary: request.preview.summary,
      }),
    ]);
    expect(request.transaction.messages).toEqual([
      buildAuthorizeOperator(ctx, { payoutRecipient: payout, operator, label: "rack-b-7" }),
    ]);
    // The small authorization's QR is the raw base64, not the link.
    const qrContent = payloadOf(signLink);
    expect(decodeWalletPayload(qrContent)).toEqual(request);
    expect(await page.locator("#step-authorize svg.qr path").getAttribute("d")).toBe(qrDrawing(qrContent).d);
    await screenshot(page, "phone-2-authorize");

    // Another phone scans it: no hash reaches this page, so the authorization list tells.
    expect(await runWallet(qrContent)).toMatch(/^included: [0-9A-F]{64} at height \d+$/m);
    expect(await shown(page.getByTestId("authorize-done"))).toMatch(/^Authorized: your node's operator/);
    expect(await devnetAuthorizations()).toContainEqual(
      expect.objectContaining({ payout_recipient: payout, operator, label: "rack-b-7" }),
    );

    // Step 3: the exact environment line and command (the server's node defaults), each copyable.
    const command = buildUpdateNodeCommand(ctx, { operator, payoutRecipient: payout, ...defaults });
    expect(
      command.startsWith(
        `docker exec ${defaults.container} ${ctx.nodeBinary} tx incentives update-node "" --payout-recipient ` +
          `${payout} --from ${defaults.keyName} --home `,
      ),
    ).toBe(true);
    expect(await page.locator("#payout-line").textContent()).toBe(
      buildPayoutRecipientLine(ctx, { operator, payoutRecipient: payout }),
    );
    expect(await page.locator("#update-node-command").textContent()).toBe(command);
    await page.getByRole("button", { name: "Copy update-node command" }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(command);
    await page.getByRole("button", { name: "Copy environment line" }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(`PAYOUT_RECIPIENT=${payout}`);
    await page.locator("#step-apply").scrollIntoViewIfNeeded();
    await screenshot(page, "phone-3-apply");

    // Step 4: the optional sweep keeps the reserve.
    await page.getByText("Sweep leftover operator balance to your payout address").click();
    await page.getByLabel("Operator balance").fill("1500000");
    const sweep = buildSweep(ctx, {
      operator,
      payoutRecipient: payout,
      balance: "1500000",
      reserve: DEFAULT_SWEEP_RESERVE,
      ...defaults,
    });
    await expect.poll(() => page.locator("#sweep-command").textContent()).toBe(sweep.command);
    await page.getByLabel("Reserve", { exact: true }).fill("2000000");
    await expect.poll(() => page.locator("#step-sweep .error").textContent()).toMatch(/nothing to sweep/);
    await page.getByLabel("Reserve", { exact: true }).fill(DEFAULT_SWEEP_RESERVE);
    await screenshot(page, "phone-4-sweep");

    // Readable at 360 px: nothing scrolls sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    expect(b.guard.webSockets.length).toBeGreaterThan(0);
    assertClean(b.guard);
  });

  it("walks the flow on a desktop, with key and container from the link and every node field editable", async () => {
    const operator = freshAddress(ctx);
    const b = await open(DESKTOP, onboardingPath(operator, "&key=node-key&container=node-1"));
    const { page } = b;
    await screenshot(page, "desktop-1-connect");
    const payout = connectedAddress(await runWallet("--seed", `desktop-${Date.now()}`, await connectLinkOf(b)));
    const signLink = await signLinkOf(b);
    await screenshot(page, "desktop-2-authorize");
    await runWallet(signLink);
    await page.getByTestId("authorize-done").waitFor({ state: "attached" });

    const target = { ...defaults, keyName: "node-key", container: "node-1" };
    const commandFor = (t: NodeTarget) => buildUpdateNodeCommand(ctx, { operator, payoutRecipient: payout, ...t });
    expect(await page.locator("#update-node-command").textContent()).toBe(commandFor(target));
    expect(commandFor(target).startsWith("docker exec node-1 ")).toBe(true);
    await screenshot(page, "desktop-3-apply");

    // A hostile container name never reaches the command; an empty one runs the binary directly.
    await page.getByLabel("Container name").fill("node-1; rm -rf /");
    await expect.poll(() => page.locator("#container-error").textContent()).toMatch(/container name/);
    expect(await page.locator("#update-node-command").count()).toBe(0);
    await page.getByLabel("Container name").fill("");
    await expect
      .poll(() => page.locator("#update-node-command").textContent())
      .toBe(commandFor({ ...target, container: "" }));

    // Home and keyring backend are editable; a hostile home is quoted as one word, a relative one refused.
    await page.getByLabel("Node home directory").fill("relative/home");
    await expect.poll(() => page.locator("#node-home-error").textContent()).toMatch(/absolute path/);
    expect(await page.locator("#update-node-command").count()).toBe(0);
    await page.getByLabel("Node home directory").fill("/srv/my node; rm -rf /");
    await page.getByLabel("Keyring backend").selectOption("file");
    const edited = { ...target, container: "", home: "/srv/my node; rm -rf /", keyringBackend: "file" };
    await expect.poll(() => page.locator("#update-node-command").textContent()).toBe(commandFor(edited));
    expect(commandFor(edited)).toContain(" --home '/srv/my node; rm -rf /' --keyring-backend file ");
    assertClean(b.guard);
  });

  it("skips the authorization when the payout address is the operator", async () => {
    const operator = freshAddress(ctx);
    const b = await open(PHONE, onboardingPath(operator));
    await runWallet("--address", operator, await connectLinkOf(b));
    await expect
      .poll(() => b.page.getByTestId("authorize-skipped").textContent())
      .toMatch(/no authorization is needed/);
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
    expect(await shown(b.page.getByTestId("authorize-done"))).toMatch(/already authorized/);
    expect(await b.page.getByTestId("sign-link").count()).toBe(0);
    assertClean(b.guard);
    await b.close();

    // Signed elsewhere after the page asked: the wallet's ErrAuthorizationExists is success too.
    const second = freshAddress(ctx);
    b = browser = await open(PHONE, onboardingPath(second));
    await runWallet("--address", payout, await connectLinkOf(b));
    const signLink = await signLinkOf(b);
    expect(await recordAuthorization(payout, second)).toBe(201);
    expect(await runWallet("--address", payout, signLink)).toMatch(
      /^already authorized: [0-9A-F]{64} .*\(counts as success\)$/m,
    );
    await b.page.getByTestId("authorize-done").waitFor({ state: "attached" });
    assertClean(b.guard);
  });

  it("cancels a connection and starts a new one", async () => {
    const b = await open(PHONE, onboardingPath(freshAddress(ctx)));
    const first = parseDeepLink(await connectLinkOf(b)).payload as ConnectPayload;
    await b.page.getByRole("button", { name: "Cancel" }).click();
    await expect.poll(() => b.page.getByRole("alert").textContent()).toBe("You cancelled the connection.");
    expect(await sessionStatus(first.session_id)).toBe("cancelled");
    await screenshot(b.page, "phone-failure-cancelled");
    await b.page.getByRole("button", { name: "Start again" }).click();
    const second = parseDeepLink(await connectLinkOf(b)).payload as ConnectPayload;
    expect(second.session_id).not.toBe(first.session_id);
    assertClean(b.guard);
  });

  it("says so when the wallet declines, and retries", async () => {
    const b = await open(PHONE, onboardingPath(freshAddress(ctx)));
    expect(await runWallet("--refuse", await connectLinkOf(b))).toMatch(/^declined/m);
    await expect
      .poll(() => b.page.getByRole("alert").textContent())
      .toBe("The connection was cancelled or declined in the wallet.");
    await b.page.getByRole("button", { name: "Start again" }).click();
    const payout = connectedAddress(await runWallet(await connectLinkOf(b)));
    await expect.poll(() => b.page.getByTestId("paired-address").textContent()).toBe(payout);
    assertClean(b.guard);
  });

  // Both wait for a clock on the server, not for each other: they run at once, each with a page of its own.
  describe.concurrent("when a request expires", () => {
    let shortLived: WranglerDev;
    beforeAll(async () => {
      shortLived = await shortLivedServer;
    });

    /** A page on the short-lived server, closed after `use` (not through the file's one `browser`). */
    async function onShortLived(use: (b: Browser) => Promise<void>): Promise<void> {
      const b = await openBrowser(PHONE, undefined, { base: shortLived.url });
      try {
        await b.page.goto(`${shortLived.url}${onboardingPath(freshAddress(ctx))}`);
        await use(b);
      } finally {
        await b.close();
      }
    }

    it("says so when the connection request expires, and retries", ({ expect }) =>
      onShortLived(async (b) => {
        await b.page
          .getByRole("alert")
          .filter({ hasText: "expired" })
          .waitFor({ timeout: (SHORT_TTL_SECONDS + 30) * 1000 });
        expect(await b.page.getByRole("alert").textContent()).toBe(
          "The connection request expired before the wallet answered.",
        );
        await screenshot(b.page, "phone-failure-expired");
        await b.page.getByRole("button", { name: "Start again" }).click();
        await b.page.getByTestId("connect-link").waitFor();
        assertClean(b.guard);
      }));

    /**
     * Connects the wallet on the short-lived server: its connect request lives 10 s, which a loaded
     * machine's simulator start can use up; then the page says so, and a new request is tried.
     */
    async function connectInTime(b: Browser): Promise<void> {
      for (;;) {
        const link = await connectLinkOf(b);
        try {
          return void (await runWallet(link));
        } catch (error) {
          if (!/expired/.test(String(error))) throw error;
        }
        await b.page.getByRole("button", { name: "Start again" }).click();
        await expect.poll(() => connectLinkOf(b).catch(() => link)).not.toBe(link);
      }
    }

    it("says so when the sign request expires unsigned, and makes a new one", ({ expect }) =>
      onShortLived(async (b) => {
        await connectInTime(b);
        const first = parseDeepLink(await signLinkOf(b)).payload as SignRequest;
        await b.page
          .getByRole("alert")
          .filter({ hasText: "expired" })
          .waitFor({ timeout: (SHORT_TTL_SECONDS + 30) * 1000 });
        expect(await b.page.getByRole("alert").textContent()).toBe(
          "The signing request expired before the authorization appeared on the network.",
        );
        await b.page.getByRole("button", { name: "Create a new request" }).click();
        const second = parseDeepLink(await signLinkOf(b)).payload as SignRequest;
        expect(second.id).not.toBe(first.id);
        await runWallet(await signLinkOf(b));
        await b.page.getByTestId("authorize-done").waitFor({ state: "attached" });
        assertClean(b.guard);
      }));
  });

  it("says so when the gateway is down, and retries", async () => {
    const payout = freshAddress(ctx);
    const fault = await addFault({
      prefix: `/${ctx.namespace}/incentives/v1/operator_authorizations/${payout}`,
      status: 503,
    });
    const b = await open(PHONE, onboardingPath(freshAddress(ctx)));
    // The browser logs failed fetches as console errors; this test expects exactly those.
    await runWallet("--address", payout, await connectLinkOf(b));
    await b.page.getByRole("alert").filter({ hasText: "gateway" }).waitFor();
    expect(await b.page.getByRole("alert").textContent()).toMatch(
      new RegExp(
        "^The network gateway answered with an error \\(HTTP 5\\d\\d\\)\\. " +
          "The page cannot check your authorization right now\\.$",
      ),
    );
    await screenshot(b.page, "phone-failure-gateway");
    await removeFault(fault);
    await b.page.getByRole("button", { name: "Create a new request" }).click();
    await b.page.getByTestId("sign-link").waitFor();
    expect(
      b.guard.problems.every((p) => /Failed to load resource: the server responded with a status of 5\d\d/.test(p)),
    ).toBe(true);
    expect(b.guard.offOrigin).toEqual([]);
  });

  describe("inside the wallet app", () => {
    it(
      "connects through requestConnect (the row stays pending), then signs through requestSign and follows the " +
        "transaction",
      async () => {
        const operator = freshAddress(ctx);
        const payout = freshAddress(ctx);
        const { b, record } = await openInApp(onboardingPath(operator), {
          bridge: "now",
          activeAddress: payout,
          connect: () => ({ address: payout, pubkeyBase64: "AAEC", accountLabel: "Main account" }),
          signer: payout,
        });
        const { page } = b;
        // The active account is a hint shown before approving; no QR inside the app.
        await expect
          .poll(() => page.getByTestId("active-account").textContent())
          .toBe(`Your wallet's active account is ${payout}.`);
        expect(await page.locator(".qr").count()).toBe(0);
        await screenshot(page, "phone-in-app-connect");
        const link = await connectLinkOf(b);
        await page.getByRole("button", { name: "Connect with this wallet" }).click();
        await expect.poll(() => page.getByTestId("paired-address").textContent()).toBe(payout);
        // requestConnect got the same base64 the deep link carries; the session row stays pending.
        expect(record.connects).toEqual([payloadOf(link)]);
        const session = decodeWalletPayload(record.connects[0]!) as ConnectPayload;
        expect(await sessionStatus(session.session_id)).toBe("pending");

        const signLink = await signLinkOf(b);
        await page.getByRole("button", { name: "Sign in your wallet app" }).click();
        expect(await shown(page.getByTestId("authorize-done"))).toMatch(
          /^Authorized: transaction [0-9A-F]{64} is on the network \(block \d+\)\./,
        );
        expect(record.signs).toEqual([payloadOf(signLink)]);
        const txhash = /transaction ([0-9A-F]{64})/.exec(
          (await page.getByTestId("authorize-done").textContent())!,
        )![1]!;
        const lookup = (await (await fetch(`${base}/api/cosmos/tx/v1beta1/txs/${txhash}`)).json()) as {
          tx_response: { code: number };
        };
        expect(lookup.tx_response.code).toBe(0);
        expect(await devnetAuthorizations()).toContainEqual(
          expect.objectContaining({ payout_recipient: payout, operator }),
        );
        await screenshot(page, "phone-in-app-signed");
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
        assertClean(b.guard);
      },
    );

    it(
      "falls back to the QR and link when the wallet app declines, and the session still takes a " + "relayed proof",
      async () => {
        const { b, record } = await openInApp(onboardingPath(freshAddress(ctx)), {
          bridge: "now",
          connect: () => {
            throw new Error("User rejected the request");
          },
        });
        await b.page.getByRole("button", { name: "Connect with this wallet" }).click();
        await expect
          .poll(() => b.page.getByTestId("bridge-fallback").textContent())
          .toBe(
            "Your wallet app declined or could not complete the connection (User rejected the request). Scan " +
              "the code " +
              "or use “Open wallet” instead; this request keeps waiting for your wallet.",
          );
        expect(await b.page.locator("#step-connect .qr").count()).toBe(1);
        expect(record.connects).toHaveLength(1);
        await screenshot(b.page, "phone-in-app-declined");
        const payout = connectedAddress(await runWallet(await connectLinkOf(b)));
        await expect.poll(() => b.page.getByTestId("paired-address").textContent()).toBe(payout);
        assertClean(b.guard);
      },
    );

    it("falls back when the wallet app answers with an address that is not the network's", async () => {
      const { b } = await openInApp(onboardingPath(freshAddress(ctx)), {
        bridge: "now",
        connect: () => ({ address: "cosmos1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqnrql8a" }),
      });
      await b.page.getByRole("button", { name: "Connect with this wallet" }).click();
      await expect
        .poll(() => b.page.getByTestId("bridge-fallback").textContent())
        .toMatch(/^Your wallet app's answer cannot be used: its address /);
      expect(await b.page.getByTestId("paired-address").count()).toBe(0);
      assertClean(b.guard);
    });

    it("finds a bridge injected a second after the page loaded", async () => {
      const payout = freshAddress(ctx);
      const { b } = await openInApp(onboardingPath(freshAddress(ctx)), {
        bridge: "late",
        connect: () => ({ address: payout }),
      });
      await b.page.getByRole("button", { name: "Connect with this wallet" }).click();
      await expect.poll(() => b.page.getByTestId("paired-address").textContent()).toBe(payout);
      assertClean(b.guard);
    });

    it(
      "shows the QR when no bridge comes within 2.5 s, and Open wallet posts the link to the app instead of " +
        "navigating",
      async () => {
        const { b, record } = await openInApp(onboardingPath(freshAddress(ctx)), { bridge: "never" });
        // The document's QR and plain link are there at once; the script takes them over once it stops waiting for the
        // bridge.
        await b.page.getByRole("button", { name: "Cancel" }).waitFor();
        await b.page.locator("#step-connect .qr").waitFor();
        expect(await b.page.getByRole("button", { name: "Connect with this wallet" }).count()).toBe(0);
        const link = await connectLinkOf(b);
        const before = b.page.url();
        await b.page.getByTestId("connect-link").click();
        await expect.poll(() => record.posted).toEqual([deepLinkMessage(ctx.walletScheme, link)]);
        expect(JSON.parse(record.posted[0]!)).toEqual({ type: `${ctx.walletScheme}_deeplink`, url: link });
        expect(b.page.url()).toBe(before);
        assertClean(b.guard);
      },
    );

    it("counts a signed authorization that already existed as success", async () => {
      const operator = freshAddress(ctx);
      const payout = freshAddress(ctx);
      // The authorization list lags here (it stays empty), so only the transaction can tell the page.
      const lagging = await addFault({
        prefix: `/${ctx.namespace}/incentives/v1/operator_authorizations/${payout}`,
        status: 200,
        content_type: "application/json",
        body: JSON.stringify({ authorizations: [], pagination: { next_key: null, total: "0" } }),
      });
      const { b } = await openInApp(onboardingPath(operator), {
        bridge: "now",
        connect: () => ({ address: payout }),
        signer: payout,
      });
      await b.page.getByRole("button", { name: "Connect with this wallet" }).click();
      await b.page.getByRole("button", { name: "Sign in your wallet app" }).waitFor();
      // Authorized elsewhere after the page asked: the wallet's transaction fails with ErrAuthorizationExists.
      expect(await recordAuthorization(payout, operator)).toBe(201);
      await b.page.getByRole("button", { name: "Sign in your wallet app" }).click();
      expect(await shown(b.page.getByTestId("authorize-done"))).toMatch(
        /^Your wallet had already authorized this operator, so transaction [0-9A-F]{64} changed nothing/,
      );
      expect(await b.page.locator("#step-authorize .state").textContent()).toBe("Done");
      await removeFault(lagging);
      assertClean(b.guard);
    });

    it("shows the chain's own failure text when the transaction fails in its block", async () => {
      const operator = freshAddress(ctx);
      const payout = freshAddress(ctx);
      let broadcast: { txhash: string; codespace: string; raw_log: string } | undefined;
      const { b } = await openInApp(onboardingPath(operator), {
        bridge: "now",
        connect: () => ({ address: payout }),
        // A wallet whose transaction the chain refuses: here it signed a self-authorization (ErrSelfAuthorization).
        sign: async () => {
          const self = buildAuthorizeOperator(ctx, { payoutRecipient: payout, operator: freshAddress(ctx) });
          const messages = [{ ...self, value: { ...self.value, operator: payout } }];
          const response = await fetch(`${inject("devnetUrl")}/__devnet/txs`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ signer: payout, messages }),
          });
          broadcast = ((await response.json()) as { tx_response: typeof broadcast }).tx_response;
          return { txhash: broadcast!.txhash };
        },
      });
      await b.page.getByRole("button", { name: "Connect with this wallet" }).click();
      await b.page.getByRole("button", { name: "Sign in your wallet app" }).click();
      const text = await shown(b.page.getByRole("alert"));
      expect(broadcast!.raw_log).not.toBe("");
      expect(text).toBe(
        `The network refused the authorization (transaction ${broadcast!.txhash}): ${broadcast!.codespace}: ` +
          `${broadcast!.raw_log.replace(/[.!?]+$/, "")}.`,
      );
      await screenshot(b.page, "phone-in-app-failed");
      expect(await b.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
      assertClean(b.guard);
    });

    it(
      "falls back to the QR when the wallet app will not sign, and still notices a scan from " + "another phone",
      async () => {
        const operator = freshAddress(ctx);
        const payout = freshAddress(ctx);
        const { b } = await openInApp(onboardingPath(operator), {
          bridge: "now",
          connect: () => ({ address: payout }),
          sign: async () => {
            throw new Error("Signing cancelled");
          },
        });
        await b.page.getByRole("button", { name: "Connect with this wallet" }).click();
        await b.page.getByRole("button", { name: "Sign in your wallet app" }).click();
        await expect
          .poll(() => b.page.getByTestId("bridge-fallback").textContent())
          .toMatch(/^Your wallet app declined or could not sign \(Signing cancelled\)\./);
        const signLink = await signLinkOf(b);
        expect(await b.page.locator("#step-authorize svg.qr path").getAttribute("d")).toBe(
          qrDrawing(payloadOf(signLink)).d,
        );
        await runWallet("--address", payout, payloadOf(signLink));
        expect(await shown(b.page.getByTestId("authorize-done"))).toMatch(/^Authorized: your node's operator/);
        assertClean(b.guard);
      },
    );
  });

  it("serves the page with a strict CSP: no inline script, its one inline stylesheet allowed by its hash", async () => {
    const response = await fetch(`${base}/`);
    expect(response.headers.get("content-security-policy")).toMatch(
      new RegExp(
        "^default-src 'self'; script-src 'self'; style-src 'self' 'sha256-[A-Za-z0-9+/]{43}='; img-src 'self'; " +
          "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'$",
      ),
    );
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("referrer-policy")).toBe("no-referrer");
    const html = await response.text();
    // Data blocks are not scripts; the stylesheet is the one inline style (test/page/page.test.ts checks its hash).
    expect(html.match(/<script(?![^>]*\b(?:src=|type="application\/json"))[^>]*>/g)).toBeNull();
    expect(html.match(/<style>/g)).toHaveLength(1);
    expect(html).not.toMatch(/\sstyle=/);
    expect(html).not.toMatch(/https?:\/\//);
  });
});

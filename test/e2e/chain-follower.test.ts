/**
 * The chain follower seen from a customer's page: on a server whose onboardings would check the
 * chain for themselves only every 5 minutes, the page moves on as soon as the block carrying the
 * authorization lands, because the network's follower reads that block and wakes the onboarding
 * it names.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { buildAuthorizeOperator } from "../../src/protocol/index.ts";
import { assertClean, openBrowser, PHONE, type Browser } from "./helpers/browser.ts";
import { freshAddress, serverContext } from "./helpers/chain.ts";
import { connectedAddress } from "./helpers/wallet.ts";
import { startWranglerDev, type WranglerDev } from "./helpers/wrangler-dev.ts";

/** Far beyond what the test waits: an onboarding that moves within it was woken by the follower. */
const CHECK_SECONDS = 300;
const apiKey = randomBytes(24).toString("hex");
let server: WranglerDev;
let browser: Browser | undefined;

beforeAll(async () => {
  server = await startWranglerDev({
    UPSTREAM_URLS: inject("devnetUrl"),
    RATE_LIMITS: "off",
    HOST_API_KEYS: apiKey,
    ONBOARDING_CHECK_SECONDS: String(CHECK_SECONDS),
  });
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function hostCall(path: string, init: RequestInit = {}): Promise<Record<string, any>> {
  const response = await fetch(`${server.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
  });
  return (await response.json()) as Record<string, any>;
}

function runWallet(...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ["scripts/wallet.ts", "--server", server.url, "--devnet", inject("devnetUrl"), ...args],
      { timeout: 90_000 },
      (error, stdout, stderr) =>
        error ? reject(new Error(`wallet failed: ${stderr || error.message}`)) : resolve(stdout),
    );
  });
}

describe("a customer's page and the chain follower", () => {
  it(
    `moves on as soon as the block carrying the authorization lands, not after the onboarding's own ` +
      `${CHECK_SECONDS} s check`,
    async () => {
      const ctx = await serverContext();
      const operator = freshAddress(ctx);
      const created = await hostCall("/api/onboardings", { method: "POST", body: JSON.stringify({ operator }) });
      browser = await openBrowser(PHONE, undefined, { base: server.url });
      const { page } = browser;
      await page.goto(`${server.url}/?onboarding=${created.id}`);
      const payout = connectedAddress(
        await runWallet(
          "--seed",
          `follower-${Date.now()}`,
          (await page.getByTestId("connect-link").getAttribute("href"))!,
        ),
      );
      await expect.poll(async () => (await hostCall(`/api/onboardings/${created.id}`)).status).toBe("connected");

      // Signed on another device: nothing tells the service but the block that carries it.
      const messages = [buildAuthorizeOperator(ctx, { payoutRecipient: payout, operator })];
      const sent = await fetch(`${inject("devnetUrl")}/__devnet/txs`, {
        method: "POST",
        body: JSON.stringify({ signer: payout, messages }),
      });
      const { tx_response } = (await sent.json()) as { tx_response: { code: number; height: string } };
      expect(tx_response.code).toBe(0);

      // A block (2 s), the follower's next pass (1 s), the onboarding's read: seconds, against a check every 5
      // minutes; the poll's deadline (a minute, for a loaded machine) stays far below that check.
      await expect
        .poll(async () => (await hostCall(`/api/onboardings/${created.id}`)).status, { timeout: 60_000 })
        .toBe("authorized");
      const authorized = await hostCall(`/api/onboardings/${created.id}`);
      expect(authorized.authorization.height).toBeGreaterThanOrEqual(Number(tx_response.height));
      await expect
        .poll(() => page.getByTestId("progress-authorized").textContent())
        .toBe(`Authorized on chain at height ${authorized.authorization.height}.`);
      assertClean(browser.guard);
    },
  );
});

/**
 * A host's onboarding that expires while its page is open: the page says so in one sentence and
 * stops, whether it was waiting for the customer's wallet or for the host to apply the payout.
 *
 * Expiry needs time to pass, and the suite's server keeps onboardings 7 days. This file starts a
 * server of its own with ONBOARDING_TTL at the configuration's floor (60 s), and runs both pages
 * side by side, so the file waits one TTL, not one per case.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { OnboardingView } from "../../src/protocol/index.ts";
import { openBrowser, PHONE, type Browser } from "./helpers/browser.ts";
import { freshAddress, serverContext } from "./helpers/chain.ts";
import { startWranglerDev, type WranglerDev } from "./helpers/wrangler-dev.ts";

/** The configuration's floor for ONBOARDING_TTL (src/config/variables.ts). */
const TTL_SECONDS = 60;
const EXPIRED =
  "This onboarding expired before it was finished. There is nothing more to do here; ask your host for a new link.";

const hostKey = randomBytes(24).toString("hex");
let server: WranglerDev;
const browsers: Browser[] = [];

beforeAll(async () => {
  server = await startWranglerDev({
    UPSTREAM_URLS: inject("devnetUrl"),
    RATE_LIMITS: "off",
    HOST_API_KEYS: hostKey,
    ONBOARDING_TTL: String(TTL_SECONDS),
    ONBOARDING_CHECK_SECONDS: "1",
  });
});

afterAll(async () => {
  await Promise.all(browsers.map((b) => b.close()));
  await server?.stop();
});

async function createOnboarding(operator: string): Promise<OnboardingView> {
  const response = await fetch(`${server.url}/api/onboardings`, {
    method: "POST",
    headers: { authorization: `Bearer ${hostKey}`, "content-type": "application/json" },
    body: JSON.stringify({ operator }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as OnboardingView;
}

async function hostStatus(id: string): Promise<string> {
  const response = await fetch(`${server.url}/api/onboardings/${id}`, {
    headers: { authorization: `Bearer ${hostKey}` },
  });
  return ((await response.json()) as OnboardingView).status;
}

async function openPage(onboarding: OnboardingView): Promise<Browser> {
  const b = await openBrowser(PHONE, undefined, { base: server.url });
  browsers.push(b);
  await b.page.goto(`${server.url}/?onboarding=${onboarding.id}`);
  return b;
}

/** What a page asks of its onboarding (reads and its push channel) from now on. */
function onboardingCallsFrom(b: Browser, id: string): () => string[] {
  const start = b.guard.requests.length;
  return () => b.guard.requests.slice(start).filter((line) => line.includes(`/api/onboarding-pages/${id}`));
}

describe("an onboarding that expires while its page is open", () => {
  it("says so and stops, waiting for the wallet and waiting for the host alike", async () => {
    const ctx = await serverContext();
    // Waiting for the wallet: open, the QR and link on screen.
    const forWallet = await createOnboarding(freshAddress(ctx));
    // Waiting for the host: the payout is the operator itself (authorized at once), and no node ever pays it.
    const operator = freshAddress(ctx);
    const forHost = await createOnboarding(operator);
    const paired = await fetch(`${server.url}/api/onboarding-pages/${forHost.id}/payout`, {
      method: "POST",
      headers: { origin: server.url, "content-type": "application/json" },
      body: JSON.stringify({ source: "in_app", address: operator }),
    });
    expect(paired.status).toBe(200);

    const [wallet, hosted] = await Promise.all([openPage(forWallet), openPage(forHost)]);
    await wallet.page.getByTestId("connect-link").waitFor();
    await hosted.page.getByTestId("progress-waiting").waitFor();
    expect(await hosted.page.getByTestId("progress-waiting").textContent()).toBe("Waiting for your host to apply it…");
    // Both were open before their onboardings expired.
    expect([await hostStatus(forWallet.id), await hostStatus(forHost.id)]).toEqual(["open", "authorized"]);

    const saysSoAndStops = async (b: Browser, onboarding: OnboardingView) => {
      const ended = b.page.getByTestId("onboarding-ended");
      await ended.waitFor({ timeout: (TTL_SECONDS + 30) * 1000 });
      expect(await ended.textContent()).toBe(EXPIRED);
      expect(await hostStatus(onboarding.id)).toBe("expired");
      // Nothing left to do: no steps, no QR or link, no waiting sentence.
      expect(await b.page.locator("#steps").isHidden()).toBe(true);
      for (const testId of ["connect-link", "progress-waiting", "sign-link"])
        expect(await b.page.getByTestId(testId).isVisible(), testId).toBe(false);
      // And it stops following the onboarding: no more reads once a poll interval has passed.
      const calls = onboardingCallsFrom(b, onboarding.id);
      await b.page.waitForTimeout(4000);
      expect(calls()).toEqual([]);
      expect(b.guard.offOrigin).toEqual([]);
    };
    await Promise.all([saysSoAndStops(wallet, forWallet), saysSoAndStops(hosted, forHost)]);
  });
});

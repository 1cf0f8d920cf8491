/**
 * The dashboard's Gateway tab in Chromium at 390 px and 1280 px: each node's url, state, height, lag, latency,
 * errors and why it is benched and until when, as `GET /api/gateway` answers; it looks again while shown; and,
 * against a server of its own whose first node answers 429, the real endpoint's benched node and its reason.
 */
import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { openBrowser, screenshot, type Browser } from "./helpers/browser.ts";
import { freshAddress, serverContext } from "./helpers/chain.ts";
import { assertCleanDashboard, expectNoSidewaysScroll, signIn, WIDTHS } from "./helpers/dashboard.ts";
import { startWranglerDev, type WranglerDev } from "./helpers/wrangler-dev.ts";

const ctx = await serverContext();
const devnet = inject("devnetUrl");
let browser: Browser | undefined;

// A server of its own, whose first REST node answers 429 with Retry-After: 120 and whose second answers.
const ownKey = randomBytes(24).toString("hex");
const tag = () => `gw${randomBytes(4).toString("hex")}`;
const [limited, fast] = [tag(), tag()];
let own: WranglerDev | undefined;

beforeAll(async () => {
  const response = await fetch(`${devnet}/__devnet/faults`, {
    method: "POST",
    body: JSON.stringify({ tag: limited, status: 429, headers: { "retry-after": "120" } }),
  });
  expect(response.status).toBe(201);
  own = await startWranglerDev({
    UPSTREAM_URLS: [limited, fast].map((t) => `${devnet}/~${t}`).join(","),
    RATE_LIMITS: "off",
    HOST_API_KEYS: ownKey,
  });
});
afterAll(async () => {
  await own?.stop();
});

afterEach(async () => {
  await browser?.close();
  browser = undefined;
});

/** A view in the agreed shape: a serving node, a node benched after a 429, and a lagging RPC node. */
const VIEW = {
  at: "2026-11-28T17:31:55.000Z",
  served_height: 123_456,
  faces: {
    rest: [
      {
        url: "https://lcd-1.example.net",
        height: 123_456,
        behind: 0,
        latency_ms: { p50: 21, p99: 48 },
        errors_last_minute: 0,
        state: "serving",
        reason: null,
        until: null,
      },
      {
        url: "https://lcd-2.example.net/a/long/path/that/must/wrap/on/a/phone/without/scrolling/sideways",
        height: 123_450,
        behind: 6,
        latency_ms: { p50: 310, p99: 4000 },
        errors_last_minute: 3,
        state: "benched",
        reason: "429, Retry-After 10 s",
        until: "2026-11-28T17:32:05.000Z",
      },
    ],
    rpc: [
      {
        url: "https://rpc-1.example.net",
        height: 123_406,
        behind: 50,
        latency_ms: { p50: null, p99: null },
        errors_last_minute: 1,
        state: "behind",
        reason: "50 blocks behind",
        until: null,
      },
    ],
  },
};

/** The cells of the node row whose url is `url`, by column label. */
async function rowOf(page: Page, url: string): Promise<Record<string, string>> {
  const row = page.locator("tr.node", { hasText: url });
  const cells = await row
    .locator("td")
    .evaluateAll((tds) => tds.map((td) => [td.getAttribute("data-label") ?? "", (td.textContent ?? "").trim()]));
  return Object.fromEntries(cells);
}

describe.each(WIDTHS)("the Gateway tab at $name", ({ name, viewport }) => {
  const shot = name.startsWith("390") ? "390" : "1280";

  it("shows each node's state, figures and why it is benched until when, and looks again while shown", async () => {
    browser = await openBrowser(viewport);
    const { page, guard } = browser;
    let asked = 0;
    await page.route("**/api/gateway", (route) => {
      asked++;
      return route.fulfill({ json: VIEW, headers: { "cache-control": "no-store" } });
    });
    await signIn(page);
    await page.getByRole("link", { name: "Gateway" }).click();
    await page.getByRole("heading", { name: "REST nodes (UPSTREAM_URLS)" }).waitFor();

    expect(await rowOf(page, "https://lcd-1.example.net")).toEqual({
      node: "https://lcd-1.example.net",
      state: "serving",
      height: "123,456",
      behind: "0",
      p50: "21 ms",
      p99: "48 ms",
      "errors last minute": "0",
      why: "—",
    });
    const benched = await rowOf(page, "https://lcd-2.example.net");
    expect(benched).toMatchObject({ state: "benched", behind: "6", p50: "310 ms", "errors last minute": "3" });
    expect(benched.why).toBe('"429, Retry-After 10 s" until 17:32:05 UTC');
    expect(await rowOf(page, "https://rpc-1.example.net")).toMatchObject({
      state: "behind",
      behind: "50",
      p50: "—",
      why: "50 blocks behind",
    });
    // The snapshot's time, and the period docs/HOSTS.md states: every 5 s while shown.
    await expect.poll(() => page.getByRole("status").first().textContent()).toContain("17:31:55 UTC");
    expect(await page.getByRole("status").first().textContent()).toContain("looks again every 5 s");
    // Each cell says what it is: the column's name at 1280 px, the line's label on a phone.
    const labelShown = await page
      .locator("tr.node td")
      .first()
      .evaluate((td) => getComputedStyle(td, "::before").content);
    expect(labelShown).toBe(viewport.width < 900 ? '"node"' : "none");
    await expectNoSidewaysScroll(page);
    await screenshot(page, `dashboard-gateway-${shot}`);
    // It looks again while the tab is shown.
    await expect.poll(() => asked).toBeGreaterThanOrEqual(2);
    assertCleanDashboard(guard);
  });

  it("reads the server's own view: a node benched by its 429 says why and until when, the other serves", async () => {
    const read = await fetch(`${own!.url}/api/cosmos/bank/v1beta1/balances/${freshAddress(ctx)}`);
    expect(read.status).toBe(200);
    browser = await openBrowser(viewport, undefined, { base: own!.url });
    const { page, guard } = browser;
    await page.goto(`${own!.url}/dashboard/#/gateway`);
    await page.getByLabel("Host API key").fill(ownKey);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "REST nodes (UPSTREAM_URLS)" }).waitFor();
    await page.locator("tr.node").first().waitFor();
    const benched = await rowOf(page, `${devnet}/~${limited}`);
    expect(benched.state).toBe("benched");
    expect(benched.why).toMatch(/^"429, Retry-After 120 s" until \d\d:\d\d:\d\d UTC$/);
    const serving = await rowOf(page, `${devnet}/~${fast}`);
    expect(serving.state).toBe("serving");
    expect(serving.height).toMatch(/^[\d,]+$/);
    await expectNoSidewaysScroll(page);
    await screenshot(page, `dashboard-gateway-live-${shot}`);
    assertCleanDashboard(guard);
  });
});

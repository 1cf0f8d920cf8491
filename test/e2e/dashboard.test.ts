/**
 * The host's dashboard at /dashboard/ in Chromium, at 390 px and 1280 px, as a support engineer
 * uses it: sign-in refused and accepted (the cookie's flags, the key nowhere in a URL or storage),
 * the list with its status filter, its one search box (a pasted reference, id or address) and
 * paging, an onboarding's attempts after a 500 and a 200, resend seen at the receiver with the
 * same webhook id, Resend offered only where it applies, an authorized onboarding whose node still
 * pays another address not shown as paying, cancel and create seen by the API, a failing receiver
 * and "Retry now", the overview's figures as the API answers them, a hostile label
 * shown as text, a cross-site post refused, and the old cookie refused after sign-out.
 */
import { afterEach, describe, expect, inject, it } from "vitest";
import { openBrowser, screenshot, type Browser } from "./helpers/browser.ts";
import { freshAddress, serverContext } from "./helpers/chain.ts";
import { cancelOnboarding, createOnboarding, hostOnboarding, hostPage, verifiedEvents } from "./helpers/host.ts";
import {
  assertCleanDashboard as assertClean,
  expectNoSidewaysScroll,
  planReceiver,
  sessionCookie,
  signIn,
  WIDTHS,
} from "./helpers/dashboard.ts";

const base = inject("baseUrl");
const key = inject("hostApiKey");
const ctx = await serverContext();
let browser: Browser | undefined;

afterEach(async () => {
  await browser?.close();
  browser = undefined;
});

const unique = () => Math.random().toString(36).slice(2, 10);

async function signedIn(viewport: { width: number; height: number }): Promise<Browser> {
  browser = await openBrowser(viewport);
  await signIn(browser.page);
  return browser;
}

describe.each(WIDTHS)("the dashboard at $name", ({ name, viewport }) => {
  const shot = name.startsWith("390") ? "390" : "1280";

  it("refuses a wrong key, signs in with the right one: HttpOnly, SameSite=Strict, expiring, no key", async () => {
    browser = await openBrowser(viewport);
    const { page, guard } = browser;
    await page.goto(`${base}/dashboard/`);
    // A first visit, never signed in, is asked to sign in, not told a session ended.
    await page.getByRole("heading", { name: "Sign in with a host key" }).waitFor();
    expect(await page.getByText("Your session ended").count()).toBe(0);
    await page.getByLabel("Host API key").fill(`wrong-${key}`);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("INVALID_CREDENTIALS");
    expect(await sessionCookie(page)).toBeUndefined();
    await expectNoSidewaysScroll(page);
    await screenshot(page, `dashboard-sign-in-${shot}`);
    await page.getByLabel("Host API key").fill(key);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Onboardings", level: 2 }).waitFor();
    const cookie = (await sessionCookie(page))!;
    expect(cookie.httpOnly).toBe(true);
    expect(cookie.sameSite).toBe("Strict");
    expect(cookie.path).toBe("/");
    expect(cookie.expires * 1000).toBeGreaterThan(Date.now() + 11 * 3_600_000);
    expect(cookie.expires * 1000).toBeLessThanOrEqual(Date.now() + 12 * 3_600_000 + 60_000);
    expect(cookie.value).not.toContain(key);
    const storage = await page.evaluate(
      () => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }),
    );
    expect(storage).not.toContain(key);
    expect(storage).toBe("{}{}");
    expect(guard.requests.filter((request) => request.includes(key))).toEqual([]);
    expect(await page.evaluate(() => document.cookie)).not.toContain("dashboard_session");
    assertClean(guard);
  });

  it("lists the API's onboardings, narrowed by status and by reference; a hostile label is text", async () => {
    const reference = `order-${unique()}`;
    const hostile = `<img src=x onerror=alert(1)>`;
    const mine = await createOnboarding({ operator: freshAddress(ctx), label: hostile, reference });
    const other = await createOnboarding({ operator: freshAddress(ctx), label: "rack-9", reference: `${reference}-b` });
    await cancelOnboarding(other.id);
    const { page, guard } = await signedIn(viewport);
    let dialogs = 0;
    page.on("dialog", (dialog) => (dialogs++, void dialog.dismiss()));
    await page.locator(`[data-id="${mine.id}"]`).waitFor();
    expect(await page.locator(`[data-id="${mine.id}"] .label`).textContent()).toBe(hostile);
    expect(await page.locator("main img").count()).toBe(0);
    await expectNoSidewaysScroll(page);
    await screenshot(page, `dashboard-list-${shot}`);

    // One box, no field to pick: a pasted reference finds its onboarding alone (another's begins with it).
    expect(await page.getByLabel("Search in").count()).toBe(0);
    const box = page.getByLabel("Search", { exact: true });
    expect(await box.getAttribute("placeholder")).toMatch(/reference.*label.*ob_ id.*operator.*payout/);
    await box.fill(reference);
    await page.getByRole("button", { name: "Search" }).click();
    await expect.poll(() => page.locator(".onboardings .row").count()).toBe(1);
    expect(await page.locator(".row").getAttribute("data-id")).toBe(mine.id);
    for (const id of [mine.id, mine.operator]) {
      await box.fill(id);
      await page.getByRole("button", { name: "Search" }).click();
      await expect.poll(() => page.locator(".onboardings .row").count()).toBe(1);
      expect(await page.locator(".row").getAttribute("data-id")).toBe(mine.id);
    }

    await page.getByLabel("Search", { exact: true }).fill(hostile);
    await page.getByRole("button", { name: "Search" }).click();
    await expect.poll(() => page.locator(".onboardings .row").first().getAttribute("data-id")).toBe(mine.id);
    expect(await page.locator(".onboardings .row .label").allTextContents()).toEqual(
      Array(await page.locator(".onboardings .row").count()).fill(hostile),
    );

    await page.getByLabel("Search", { exact: true }).fill("");
    await page.getByRole("button", { name: "Search" }).click();
    await page.getByLabel("Status").selectOption("cancelled");
    await page.locator(`[data-id="${other.id}"]`).waitFor();
    const shown = await page.locator(".row .badge").allTextContents();
    expect(new Set(shown)).toEqual(new Set(["cancelled"]));

    await page.locator(`[data-id="${other.id}"] a`).click();
    await page.getByRole("heading", { name: "rack-9" }).waitFor();
    expect(dialogs).toBe(0);
    await expectNoSidewaysScroll(page);
    assertClean(guard);
  });

  it("shows an authorized onboarding whose node pays another address as not paying, with the command", async () => {
    // A devnet node paying an address of its own; the payout is its operator, so the onboarding is authorized at once.
    const nodes = (await (await fetch(`${inject("devnetUrl")}/${ctx.namespace}/incentives/v1/nodes`)).json()) as {
      nodes: { operator: string; payout_recipient: string }[];
    };
    const node = nodes.nodes.find((n) => n.payout_recipient !== n.operator)!;
    const onboarding = await createOnboarding({ operator: node.operator, label: "not applied yet" });
    const paired = await fetch(`${base}/api/onboarding-pages/${onboarding.id}/payout`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ source: "in_app", address: node.operator }),
    });
    expect(paired.status).toBe(200);
    await expect.poll(async () => (await hostOnboarding(onboarding.id)).node.height).toBeGreaterThan(0);
    const read = await hostOnboarding(onboarding.id);
    expect(read.status).toBe("authorized");
    const { page, guard } = await signedIn(viewport);
    await page.goto(`${base}/dashboard/#/onboardings/${onboarding.id}`);
    const pays = page.locator(".facts").getByText(/^not yet: at height \d+ the node pays /);
    await pays.waitFor();
    expect(await pays.textContent()).toContain(node.payout_recipient);
    expect(await page.locator(".facts").textContent()).not.toMatch(/node pays the payout\s*verified/);
    expect(await page.locator(".command pre").textContent()).toContain("update-node");
    assertClean(guard);
  });

  it("marks the onboardings that wait in their status longer than expected", async () => {
    const waiting = await createOnboarding({ operator: freshAddress(ctx), label: "left open" });
    const ended = await createOnboarding({ operator: freshAddress(ctx), label: "ended" });
    await cancelOnboarding(ended.id);
    browser = await openBrowser(viewport);
    // A day and an hour from now in the page: an open onboarding is expected to be connected within a day.
    await browser.page.clock.setFixedTime(Date.now() + 25 * 3_600_000);
    await signIn(browser.page);
    await browser.page.locator(`[data-id="${ended.id}"]`).waitFor();
    expect(await browser.page.locator(`[data-id="${waiting.id}"] .late`).textContent()).toBe("waiting long");
    expect(await browser.page.locator(`[data-id="${ended.id}"] .late`).count()).toBe(0);
    assertClean(browser.guard);
  });

  it("pages by cursor to the 60th onboarding", async () => {
    const operator = freshAddress(ctx);
    const created: string[] = [];
    for (let i = 0; i < 60; i++) created.push((await createOnboarding({ operator, label: `node ${i + 1}` })).id);
    // The index may trail the onboardings by about a second.
    await expect
      .poll(async () => (await hostPage(`/api/onboardings?operator=${operator}&limit=100`)).data.length)
      .toBe(60);
    const { page, guard } = await signedIn(viewport);
    await page.getByLabel("Search", { exact: true }).fill(operator);
    await page.getByRole("button", { name: "Search" }).click();
    await page.locator(`[data-id="${created[59]}"]`).waitFor();
    for (const page_ of [2, 3]) {
      await page.getByRole("button", { name: "Next" }).click();
      await expect.poll(() => page.locator(".row .n").first().textContent()).toBe(`${(page_ - 1) * 25 + 1}.`);
    }
    // Newest first: the 60th row is the first one created.
    await page.locator(`[data-id="${created[0]}"]`).waitFor();
    expect(await page.locator(`[data-id="${created[0]}"] .n`).textContent()).toBe("60.");
    expect(await page.getByRole("button", { name: "Next" }).isDisabled()).toBe(true);
    await expectNoSidewaysScroll(page);
    assertClean(guard);
  });

  it("creates an onboarding from the form (the link and a QR), and cancels it: the API sees both", async () => {
    const operator = freshAddress(ctx);
    const reference = `desk-${unique()}`;
    const { page, guard } = await signedIn(viewport);
    await page.getByRole("link", { name: "New onboarding" }).click();
    await page.getByLabel("Operator address").fill(operator);
    await page.getByLabel("Label (shown to the customer)").fill("rack 4");
    await page.getByLabel("Your reference (never shown to the customer)").fill(reference);
    await page.getByLabel("Return URL").fill("http://127.0.0.1/back");
    await page.getByRole("button", { name: "Create onboarding" }).click();
    const link = page.locator(".outcome a.url");
    await link.waitFor();
    expect(await page.locator(".outcome svg.qr").count()).toBe(1);
    const listed = await hostPage(`/api/onboardings?reference=${reference}`);
    expect(listed.data).toHaveLength(1);
    const [made] = listed.data;
    expect(made).toMatchObject({ operator, label: "rack 4", reference, return_url: "http://127.0.0.1/back" });
    expect(await link.textContent()).toBe(made!.url);
    await expectNoSidewaysScroll(page);
    await screenshot(page, `dashboard-create-${shot}`);

    page.on("dialog", (dialog) => void dialog.accept());
    await page.getByRole("link", { name: "Open the onboarding" }).click();
    await page.getByRole("button", { name: "Cancel onboarding" }).click();
    await page.locator("h2 .badge", { hasText: "cancelled" }).waitFor();
    expect((await hostOnboarding(made!.id)).status).toBe("cancelled");
    assertClean(guard);
  });
});

describe.each(WIDTHS)("webhook deliveries in the dashboard at $name", ({ name, viewport }) => {
  const shot = name.startsWith("390") ? "390" : "1280";

  it("a receiver's 500 then 200 show as two attempts; Resend delivers the same webhook id", async () => {
    const onboarding = await createOnboarding({ operator: freshAddress(ctx), label: "five hundred" });
    await planReceiver(onboarding.id, [500, 200]);
    await cancelOnboarding(onboarding.id);
    await expect.poll(async () => (await verifiedEvents(onboarding.id)).length).toBe(2);
    const { page, guard } = await signedIn(viewport);
    await page.goto(`${base}/dashboard/#/onboardings/${onboarding.id}`);
    const attempts = page.locator(".event .attempts li");
    await expect
      .poll(() => attempts.allTextContents())
      .toEqual([expect.stringContaining("HTTP 500"), expect.stringContaining("HTTP 200")]);
    await expectNoSidewaysScroll(page);
    await screenshot(page, `dashboard-onboarding-${shot}`);

    const [first] = await verifiedEvents(onboarding.id);
    await page.locator(`[data-event="${first!.webhookId}"]`).getByRole("button", { name: "Resend" }).click();
    await expect.poll(async () => (await verifiedEvents(onboarding.id)).length).toBe(3);
    const ids = (await verifiedEvents(onboarding.id)).map((event) => event.webhookId);
    expect(new Set(ids)).toEqual(new Set([first!.webhookId]));
    // The row follows the resent event to its delivery without a reload: no stale "Next attempt".
    await expect.poll(() => attempts.count(), { timeout: 30_000 }).toBe(3);
    const row = page.locator(`[data-event="${first!.webhookId}"]`);
    await expect.poll(() => row.locator(".next").textContent(), { timeout: 30_000 }).toMatch(/^Delivered /);
    assertClean(guard);
  });

  it("a failing receiver shows as failing, and Retry now delivers once it is back", async () => {
    const onboarding = await createOnboarding({ operator: freshAddress(ctx), label: "outage" });
    await planReceiver(
      onboarding.id,
      Array.from({ length: 200 }, () => 503),
    );
    await cancelOnboarding(onboarding.id);
    const { page, guard } = await signedIn(viewport);
    await expect.poll(async () => (await verifiedEvents(onboarding.id)).length).toBeGreaterThan(0);
    // An event still owed (failed, its next attempt due) is not offered Resend: it is on its way already.
    await page.goto(`${base}/dashboard/#/onboardings/${onboarding.id}`);
    await page.locator(".event .attempts li").first().waitFor();
    expect(await page.locator(".event .next").first().textContent()).not.toMatch(/^(Delivered|Given up)/);
    expect(await page.getByRole("button", { name: "Resend" }).count()).toBe(0);
    await page.getByRole("link", { name: "Webhook and overview" }).click();
    await expect
      .poll(async () => {
        await page.reload();
        return page.locator(".state").textContent();
      })
      .toContain("failing since");
    expect(await page.locator(".last-error").textContent()).toContain("503");
    await expectNoSidewaysScroll(page);
    await screenshot(page, `dashboard-webhook-failing-${shot}`);
    await planReceiver(onboarding.id, []);
    await page.getByRole("button", { name: "Retry now" }).click();
    await expect
      .poll(async () => (await hostOnboarding(onboarding.id)) && (await eventsOf(onboarding.id)))
      .toContain("delivered");
    await expect.poll(async () => (await page.reload(), page.locator(".state").textContent())).toBe("delivering");
    assertClean(guard);
  });
});

/** The delivery state of an onboarding's events, as the events log says. */
async function eventsOf(id: string): Promise<string> {
  const response = await fetch(`${base}/api/onboardings/${id}/events`, { headers: { authorization: `Bearer ${key}` } });
  const log = (await response.json()) as { events: { delivered_at: string | null }[] };
  return log.events.map((event) => (event.delivered_at ? "delivered" : "waiting")).join(",");
}

describe.each(WIDTHS)("the overview and the session's end at $name", ({ name, viewport }) => {
  it("shows the API's figures; refuses a cross-site post with the cookie, and the cookie after sign-out", async () => {
    const { page, guard } = await signedIn(viewport);
    await page.getByRole("link", { name: "Webhook and overview" }).click();
    await page.locator(".chart canvas").first().waitFor();
    const cookie = (await sessionCookie(page))!;
    const header = { cookie: `${cookie.name}=${cookie.value}` };
    const figures = (await (await fetch(`${base}/api/overview`, { headers: header })).json()) as {
      per_day: { day: string; status: string; n: number }[];
      per_hour: { hour: string; outcome: string; n: number }[];
    };
    // The earlier tests of this file delivered, failed and resent: the hours hold both outcomes.
    expect(new Set(figures.per_hour.map((r) => r.outcome))).toEqual(new Set(["delivered", "failed"]));
    expect(await page.locator(".chart canvas").count()).toBe(2);
    for (const summary of await page.locator("summary").all()) await summary.click();
    const rows = (table: string) =>
      page
        .locator(`table.${table} tbody tr`)
        .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)));
    expect(await rows("per-day")).toEqual(figures.per_day.map((r) => [r.day, r.status, String(r.n)]));
    expect(await rows("per-hour")).toEqual(figures.per_hour.map((r) => [r.hour, r.outcome, String(r.n)]));
    await expectNoSidewaysScroll(page);
    await screenshot(page, `dashboard-overview-${name.startsWith("390") ? "390" : "1280"}`);

    // A cross-site post: the cookie would go only if the browser sent it, and the Origin is another site's.
    const onboarding = await createOnboarding({ operator: freshAddress(ctx) });
    const crossSite = await fetch(`${base}/api/onboardings/${onboarding.id}/cancel`, {
      method: "POST",
      headers: { ...header, origin: "https://attacker.example" },
    });
    expect(crossSite.status).toBe(403);
    expect((await crossSite.json()).details[0].reason).toBe("CROSS_ORIGIN");
    const noOrigin = await fetch(`${base}/api/onboardings/${onboarding.id}/cancel`, {
      method: "POST",
      headers: header,
    });
    expect(noOrigin.status).toBe(403);
    expect((await hostOnboarding(onboarding.id)).status).toBe("open");

    const before = (await sessionCookie(page))!;
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("Host API key").waitFor();
    expect(await sessionCookie(page)).toBeUndefined();
    const after = await fetch(`${base}/api/onboardings`, { headers: header });
    expect(after.status).toBe(401);
    expect((await after.json()).details[0].reason).toBe("SESSION_INVALID");
    // A session that really ended (its revoked cookie comes back): now the page says so.
    await page.context().addCookies([before]);
    await page.reload();
    await page.getByText("Your session ended. Sign in again.").waitFor();
    assertClean(guard);
  });
});

/**
 * The host's dashboard in the browser tests: sign in through its form, read its cookie, plan the
 * webhook receiver's answers, and check that nothing scrolls sideways.
 */
import type { Page } from "playwright-core";
import { expect, inject } from "vitest";
import { assertClean, type Guard } from "./browser.ts";

/** The widths the dashboard is proven at: a phone's 390 px and a desktop's 1280 px. */
export const WIDTHS = [
  { name: "390 px", viewport: { width: 390, height: 844 } },
  { name: "1280 px", viewport: { width: 1280, height: 900 } },
] as const;

/** Opens the dashboard and signs in with `key` through its form; resolves once the list shows. */
export async function signIn(page: Page, key = inject("hostApiKey")): Promise<void> {
  await page.goto(`${inject("baseUrl")}/dashboard/`);
  await page.getByLabel("Host API key").fill(key);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Onboardings", level: 2 }).waitFor();
}

/** The dashboard's session cookie as the browser keeps it. */
export async function sessionCookie(page: Page) {
  const cookies = await page.context().cookies();
  return cookies.find((cookie) => cookie.name === "dashboard_session");
}

/** Fails when the page is wider than its viewport (it would scroll sideways). */
export async function expectNoSidewaysScroll(page: Page): Promise<void> {
  const { scroll, client } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
  }));
  expect(scroll, "the page scrolls sideways").toBeLessThanOrEqual(client);
}

/** Has the test webhook receiver answer onboarding `id`'s next deliveries with `answers` (204 after them). */
export async function planReceiver(id: string, answers: (number | "down")[]): Promise<void> {
  const url = new URL("/__receiver/plan", inject("webhooksReceivedUrl"));
  const response = await fetch(url, { method: "POST", body: JSON.stringify({ onboarding: id, answers }) });
  if (response.status !== 201) throw new Error(`the receiver's plan answered ${response.status}`);
}

/**
 * `assertClean` for the dashboard: the browser logs each 401 the dashboard's session check, the
 * list's first page asked beside it, or a refused sign-in answers (the page then shows the sign-in,
 * as it should); anything else fails.
 */
export function assertCleanDashboard(guard: Guard): void {
  const expected = (problem: string) =>
    /status of 401/.test(problem) && /\/(dashboard\/(session|sign-in)|api\/onboardings\?limit=25)\)$/.test(problem);
  assertClean({ ...guard, problems: guard.problems.filter((problem) => !expected(problem)) });
}

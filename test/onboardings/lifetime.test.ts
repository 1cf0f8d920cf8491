/**
 * How long an onboarding lives: it expires at `expires_at` from every state that waits (for the
 * wallet, for the chain, for the host), never once applied, and an ended one is kept 30 days.
 * Time passes as the tests pass it: the clock moves on, and the object does what is due then.
 */
import { runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { errorReason } from "../helpers/sessions";
import {
  accountAddress,
  clockTo,
  createOnboarding,
  devnetNode,
  host,
  hostPost,
  onboardingStub,
  page,
  readOnboarding,
  settle,
} from "./helpers";

const DAY_MS = 86_400_000;

afterEach(() => vi.useRealTimers());

/** The time the onboarding's alarm is set for (null: none). */
function alarmOf(id: string): Promise<number | null> {
  return runInDurableObject(onboardingStub(id), (_instance, state) => state.storage.getAlarm());
}

/** Moves the clock on to `at` and lets the onboarding do what is due then. */
async function wakeAt(id: string, at: number): Promise<void> {
  clockTo(at);
  await settle(id);
}

async function eventTypes(id: string): Promise<string[]> {
  return (await (await host(`/${id}/events`)).json<{ events: { type: string }[] }>()).events.map((e) => e.type);
}

describe("expiry from every state that waits", () => {
  it("gives an onboarding ONBOARDING_TTL, 7 days unless set, from its creation", async () => {
    const created = await createOnboarding({ operator: accountAddress() });
    expect(Date.parse(created.expires_at) - Date.parse(created.created_at)).toBe(7 * DAY_MS);
  });

  it.each([
    ["connected (waiting for the authorization on chain)", async (operator: string) => accountAddress(), "connected"],
    ["authorized (waiting for the host to apply it)", async (operator: string) => operator, "authorized"],
  ])(
    "expires an onboarding left %s at expires_at, tells the host, and refuses what comes late",
    async (_name, payoutFor, waiting) => {
      const operator = accountAddress();
      const created = await createOnboarding({ operator });
      expect((await page.payout(created.id, { source: "in_app", address: await payoutFor(operator) })).status).toBe(
        200,
      );
      await settle(created.id);
      expect((await readOnboarding(created.id)).status).toBe(waiting);

      // A minute before expires_at it still waits; at expires_at it has expired.
      const expiresAt = Date.parse(created.expires_at);
      await wakeAt(created.id, expiresAt - 60_000);
      expect((await readOnboarding(created.id)).status).toBe(waiting);
      await wakeAt(created.id, expiresAt);
      const expired = await readOnboarding(created.id);
      expect(expired.status).toBe("expired");
      expect((await eventTypes(created.id)).at(-1)).toBe("onboarding.expired");
      expect((await (await page.view(created.id)).json<{ status: string }>()).status).toBe("expired");
      expect(await errorReason(await page.authorization(created.id, "AB".repeat(32)))).toBe("ONBOARDING_EXPIRED");
      expect(await errorReason(await hostPost(`/${created.id}/cancel`, {}))).toBe("ONBOARDING_EXPIRED");
    },
  );

  it("never expires an applied onboarding", async () => {
    const node = await devnetNode("paying-authorized-payout");
    const created = await createOnboarding({ operator: node.operator });
    await page.payout(created.id, { source: "in_app", address: node.payout_recipient });
    await settle(created.id);
    expect((await readOnboarding(created.id)).status).toBe("applied");
    await wakeAt(created.id, Date.parse(created.expires_at) + DAY_MS);
    expect((await readOnboarding(created.id)).status).toBe("applied");
    expect(await eventTypes(created.id)).not.toContain("onboarding.expired");
  });
});

describe("retention", () => {
  it("keeps an ended onboarding 30 days after it ended, its events delivered, then forgets it", async () => {
    const created = await createOnboarding({ operator: accountAddress() });
    await hostPost(`/${created.id}/cancel`, {});
    await settle(created.id);
    const ended = await readOnboarding(created.id);
    const log = await (await host(`/${created.id}/events`)).json<{ events: { delivered_at: string | null }[] }>();
    expect(log.events.every((e) => e.delivered_at !== null)).toBe(true);
    // Nothing is left to do but to forget it, 30 days after it ended.
    const endedAt = Date.parse(ended.updated_at);
    expect(await alarmOf(created.id)).toBe(endedAt + 30 * DAY_MS);
    await wakeAt(created.id, endedAt + 29 * DAY_MS);
    expect((await readOnboarding(created.id)).status).toBe("cancelled");
    await wakeAt(created.id, endedAt + 30 * DAY_MS);
    expect((await host(`/${created.id}`)).status).toBe(404);
  });
});

/**
 * `POST /api/webhook/retry`: a host that fixed its receiver has the failing endpoint tried now
 * instead of at the lane's next probe; with no webhook configured, a refusal that says so.
 */
import { createExecutionContext, env, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { buildApp } from "../../src/app";
import { readConfig } from "../../src/config";
import { ORIGIN, api, errorReason } from "../helpers/sessions";
import { accountAddress, bearer, createOnboarding, laneStub, outage, page, settle } from "./helpers";

afterEach(() => vi.useRealTimers());

const retry = (init: RequestInit = {}, query = "") =>
  api(`/api/webhook/retry${query}`, { method: "POST", ...init, headers: { ...bearer(), ...init.headers } });
const nextProbe = () =>
  runInDurableObject(
    laneStub(),
    async (_lane, state) => (await state.storage.get<{ next_probe_at: number | null }>("lane"))?.next_probe_at ?? null,
  );

describe("POST /api/webhook/retry", () => {
  it("answers 202 with nothing to try while the endpoint is not failing", async () => {
    const response = await retry();
    expect(response.status).toBe(202);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await response.json()).toEqual({ failing: false, next_attempt_at: null, resent: 0 });
  });

  it("has a failing endpoint tried now, not at its next probe, and says when", async () => {
    // The clock stands still here, so the probe stays 5 s away however long a loaded machine takes to get there.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now());
    const operator = accountAddress();
    const { id } = await createOnboarding({ operator });
    await outage([id]);
    await page.payout(id, { source: "in_app", address: operator });
    await settle(id);
    const probe = await nextProbe();
    expect(probe! - Date.now()).toBeGreaterThan(1000);

    const before = Date.now();
    const response = await retry();
    expect(response.status).toBe(202);
    const body = await response.json<{ failing: boolean; next_attempt_at: string }>();
    expect(body.failing).toBe(true);
    expect(Date.parse(body.next_attempt_at)).toBeGreaterThanOrEqual(before);
    // Due now: the probe 5 s away was brought forward (the lane runs it as soon as the platform runs its alarm).
    expect(Date.parse(body.next_attempt_at)).toBeLessThanOrEqual(Date.now());
  });

  it("sends the given-up events of at most 500 onboardings again per call (a host calls again for more)", async () => {
    // 501 onboardings with an event given up, as the index lists them.
    await env.ONBOARDING_INDEX.prepare(
      `INSERT INTO events (id, type, created_at, onboarding_id, data, failed_at)
       WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 501)
       SELECT 'msg_given_up_' || i, 'onboarding.connected', '2026-11-01T00:00:00.000Z', printf('ob_%032x', i), '{}',
              '2026-11-04T00:00:00.000Z' FROM n`,
    ).run();
    // The onboardings' objects, counted: each asked to send its given-up events again sends one.
    const asked = new Set<string>();
    const onboardings = {
      idFromName: (name: string) => name,
      get: (name: string) => ({
        resend: async () => {
          asked.add(name);
          return 1;
        },
      }),
    };
    const app = buildApp(readConfig(env));
    const ctx = createExecutionContext();
    const response = await app.fetch(
      new Request(`${ORIGIN}/api/webhook/retry`, { method: "POST", headers: bearer() }),
      { ...env, ONBOARDINGS: onboardings },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(response.status).toBe(202);
    expect(asked.size).toBe(500);
    expect((await response.json<{ resent: number }>()).resent).toBe(500);
  });

  it("refuses with the one error shape when no webhook is configured", async () => {
    const app = buildApp(readConfig({ ...env, HOST_WEBHOOK_URL: "", HOST_WEBHOOK_SECRET: "" }));
    const ctx = createExecutionContext();
    const response = await app.fetch(
      new Request(`${ORIGIN}/api/webhook/retry`, { method: "POST", headers: bearer() }),
      env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(response.status).toBe(409);
    const body = await response.json<{
      message: string;
      details: { reason: string; metadata: Record<string, string> }[];
    }>();
    expect(body.details[0]).toMatchObject({
      reason: "WEBHOOK_NOT_CONFIGURED",
      metadata: { variable: "HOST_WEBHOOK_URL" },
    });
    expect(body.message).toContain("HOST_WEBHOOK_URL");
  });

  it("is for the host's servers only, by POST, without query parameters", async () => {
    const anonymous = await api("/api/webhook/retry", { method: "POST", headers: { origin: "https://evil.example" } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("access-control-allow-origin")).toBeNull();
    const get = await retry({ method: "GET" });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    expect(await errorReason(await retry({}, "?url=https://elsewhere.example"))).toBe("UNKNOWN_QUERY_PARAMETER");
  });
});

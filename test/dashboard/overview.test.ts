/**
 * `GET /api/overview`: the dashboard's figures as the index holds them, each read through an index
 * (EXPLAIN QUERY PLAN names one, never a scan of the table); and per-event resend's refusals.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { median, OVERVIEW_SQL } from "../../src/dashboard/overview";
import { api, errorReason } from "../helpers/sessions";
import { accountAddress, bearer, createOnboarding, hostPost } from "../onboardings/helpers";

describe("the overview's figures", () => {
  // Each figure's own index (migrations/0004_dashboard.sql, and 0003's given-up events), covering where it can be.
  const INDEXES: Record<keyof typeof OVERVIEW_SQL, RegExp> = {
    perDay: /^SEARCH onboardings USING COVERING INDEX onboardings_by_created_status /,
    applied: /^SEARCH onboardings USING COVERING INDEX onboardings_applied_times /,
    givenUp: /^SCAN events USING (COVERING )?INDEX events_given_up$/,
    perHour: /^SEARCH delivery_attempts USING COVERING INDEX delivery_attempts_by_time /,
  };

  it.each(Object.entries(OVERVIEW_SQL))("%s reads its index, not every row", async (name, sql) => {
    const plan = await env.ONBOARDING_INDEX.prepare(`EXPLAIN QUERY PLAN ${sql}`)
      .bind(...(sql.includes("?") ? ["2026-01-01"] : []))
      .all<{ detail: string }>();
    const details = plan.results.map((row) => row.detail);
    expect(details[0]).toMatch(INDEXES[name as keyof typeof OVERVIEW_SQL]);
    expect(details.filter((detail) => /^SCAN (onboardings|events|delivery_attempts)$/.test(detail))).toEqual([]);
  });

  it("counts today's onboardings by status, as the list holds them", async () => {
    const before = await overview();
    const today = new Date().toISOString().slice(0, 10);
    const count = (o: typeof before, status: string) =>
      o.per_day.find((row) => row.day === today && row.status === status)?.n ?? 0;
    const made = await createOnboarding({ operator: accountAddress() });
    await hostPost(`/${made.id}/cancel`, undefined);
    await createOnboarding({ operator: accountAddress() });
    await expect
      .poll(async () => {
        const after = await overview();
        return [count(after, "open") - count(before, "open"), count(after, "cancelled") - count(before, "cancelled")];
      })
      .toEqual([1, 1]);
    expect((await overview()).since).toBe(new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10));
  });

  it("refuses a caller without a key or a session", async () => {
    const response = await fetchOverview({});
    expect(response.status).toBe(401);
    expect(await errorReason(response)).toBe("MISSING_CREDENTIALS");
  });

  it("takes the median of an even and an odd count", () => {
    expect(median([])).toBeNull();
    expect(median([5])).toBe(5);
    expect(median([1, 2, 10])).toBe(2);
    expect(median([1, 3, 10, 20])).toBe(7);
  });
});

describe("resending one event", () => {
  it("refuses a malformed event id (400) and an event the onboarding does not have (404)", async () => {
    const { id } = await createOnboarding({ operator: accountAddress() });
    const malformed = await hostPost(`/${id}/events/msg_nope/resend`, undefined);
    expect(malformed.status).toBe(400);
    expect(await errorReason(malformed)).toBe("INVALID_EVENT_ID");
    const unknown = await hostPost(`/${id}/events/msg_${"0".repeat(32)}/resend`, undefined);
    expect(unknown.status).toBe(404);
    expect(await errorReason(unknown)).toBe("EVENT_NOT_FOUND");
  });
});

function fetchOverview(headers: Record<string, string>): Promise<Response> {
  return api("/api/overview", { headers });
}

async function overview(): Promise<{ since: string; per_day: { day: string; status: string; n: number }[] }> {
  const response = await fetchOverview(bearer());
  expect(response.status).toBe(200);
  return response.json();
}

describe("the deliveries per hour", () => {
  it("count each attempt at the receiver, delivered or failed, in its hour", async () => {
    const hour = () => new Date().toISOString().slice(0, 13);
    const count = async (outcome: string) => {
      const body = (await (await fetchOverview(bearer())).json()) as {
        per_hour: { hour: string; outcome: string; n: number }[];
      };
      return body.per_hour.filter((r) => r.hour === hour() && r.outcome === outcome).reduce((sum, r) => sum + r.n, 0);
    };
    const before = await count("delivered");
    const { id } = await createOnboarding({ operator: accountAddress() });
    await hostPost(`/${id}/cancel`, undefined);
    await expect.poll(() => count("delivered")).toBeGreaterThan(before);
  });
});

describe("the list by label", () => {
  it("finds onboardings by their exact label, through the label's index", async () => {
    const label = `rack ${crypto.randomUUID().slice(0, 8)}`;
    const made = await createOnboarding({ operator: accountAddress(), label });
    await createOnboarding({ operator: accountAddress(), label: `${label}-other` });
    await expect
      .poll(async () => {
        const response = await api(`/api/onboardings?label=${encodeURIComponent(label)}`, { headers: bearer() });
        return ((await response.json()) as { data: { id: string }[] }).data.map((o) => o.id);
      })
      .toEqual([made.id]);
    const plan = await env.ONBOARDING_INDEX.prepare(
      "EXPLAIN QUERY PLAN SELECT onboarding FROM onboardings WHERE label = ? " +
        "ORDER BY created_at DESC, id DESC LIMIT 21",
    )
      .bind(label)
      .all<{ detail: string }>();
    expect(plan.results[0]!.detail).toMatch(/USING INDEX onboardings_by_label/);
  });
});

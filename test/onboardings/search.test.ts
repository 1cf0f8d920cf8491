/**
 * The list's one search (`GET /api/onboardings?q=`): any of an onboarding's ids finds it in one
 * request, its `ob_` id and reference exactly and its label, operator or payout by their beginning,
 * read through the columns' indexes (EXPLAIN QUERY PLAN), never a scan of every row.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SEARCH_CLAUSE, writeOnboardingRow } from "../../src/onboardings/index/store";
import { mintOnboardingId, type OnboardingView } from "../../src/protocol/index";
import { errorReason } from "../helpers/sessions";
import { accountAddress, host } from "./helpers";

const db = env.ONBOARDING_INDEX;

/** Writes an onboarding with these fields into the index, `second` seconds into its day, and returns it. */
async function indexed(second: number, fields: Partial<OnboardingView>): Promise<OnboardingView> {
  const at = new Date(Date.parse("2026-11-02T00:00:00.000Z") + second * 1000).toISOString();
  const onboarding: OnboardingView = {
    id: mintOnboardingId(),
    status: "connected",
    operator: accountAddress(),
    label: "",
    reference: null,
    url: "https://edge.test/?onboarding=x",
    return_url: null,
    payout: accountAddress(),
    payout_source: "relay",
    authorization: { required: null },
    node: {},
    created_at: at,
    updated_at: at,
    expires_at: "2026-11-09T00:00:00.000Z",
    ...fields,
  };
  await writeOnboardingRow(db, { onboarding, version: 1, events: [] });
  return onboarding;
}

async function search(term: string): Promise<string[]> {
  const response = await host(`?q=${encodeURIComponent(term)}`);
  expect(response.status, await response.clone().text()).toBe(200);
  return ((await response.json()) as { data: { id: string }[] }).data.map((o) => o.id);
}

describe("GET /api/onboardings?q=", () => {
  it("finds an onboarding alone by its reference, label, operator, payout or ob_ id, whole", async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const mine = await indexed(1, { reference: `order-${tag}-1042`, label: `rack ${tag} A` });
    await indexed(2, { reference: `order-${tag}-2042`, label: `rack ${tag} B` });
    for (const term of [mine.reference!, mine.label, mine.operator, mine.payout!, mine.id])
      expect(await search(term), term).toEqual([mine.id]);
  });

  it("finds a pasted reference alone, though another onboarding's reference begins with it", async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const mine = await indexed(3, { reference: `order-${tag}` });
    await indexed(4, { reference: `order-${tag}0` });
    expect(await search(`order-${tag}`)).toEqual([mine.id]);
  });

  it("finds by the beginning of a label or an address, newest first; an ob_ id only whole", async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const older = await indexed(5, { label: `desk ${tag} 7` });
    const newer = await indexed(6, { label: `desk ${tag} 8`, payout: older.payout });
    expect(await search(`desk ${tag}`)).toEqual([newer.id, older.id]);
    expect(await search(newer.operator.slice(0, -3))).toEqual([newer.id]);
    expect(await search(older.payout!.slice(0, -3))).toEqual([newer.id, older.id]);
    expect(await search(older.id.slice(0, -4))).toEqual([]);
    // Case and the middle of a value do not match: a search is exact or by prefix.
    expect(await search(`DESK ${tag}`)).toEqual([]);
    expect(await search(`${tag} 7`)).toEqual([]);
  });

  it("takes LIKE's wildcards as the characters they are", async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const literal = await indexed(7, { label: `50%_${tag}` });
    await indexed(8, { label: `50ab${tag}` });
    expect(await search("50%_")).toEqual([literal.id]);
  });

  it("pages a search by cursor like the rest of the list", async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await indexed(10 + i, { label: `batch ${tag} ${i}` }));
    const first = await host(`?q=${encodeURIComponent(`batch ${tag}`)}&limit=2`);
    const page = (await first.json()) as { data: { id: string }[]; has_more: boolean };
    expect(page.data.map((o) => o.id)).toEqual([made[2]!.id, made[1]!.id]);
    expect(page.has_more).toBe(true);
    const rest = await host(`?q=${encodeURIComponent(`batch ${tag}`)}&limit=2&starting_after=${made[1]!.id}`);
    expect(((await rest.json()) as { data: { id: string }[] }).data.map((o) => o.id)).toEqual([made[0]!.id]);
  });

  it("refuses an empty or over-long search in the one error shape", async () => {
    for (const q of ["", "x".repeat(129)]) {
      const response = await host(`?q=${q}`);
      expect(response.status, q).toBe(400);
      expect(await errorReason(response)).toBe("INVALID_QUERY_PARAMETER");
    }
  });

  it("reads each field through its index, never scanning every row", async () => {
    const plan = await db
      .prepare(
        `EXPLAIN QUERY PLAN SELECT onboarding FROM onboardings WHERE ${SEARCH_CLAUSE} ` +
          "ORDER BY created_at DESC, id DESC LIMIT 26",
      )
      .bind("x", "x", "x", "x\u{10FFFF}", "x", "x\u{10FFFF}", "x", "x\u{10FFFF}")
      .all<{ detail: string }>();
    const details = plan.results.map((row) => row.detail);
    expect(details.join("\n")).not.toMatch(/^SCAN onboardings$/m);
    for (const index of [
      "onboardings_by_label",
      "onboardings_by_reference",
      "onboardings_by_operator",
      "onboardings_by_payout",
    ])
      expect(
        details.some((detail) => detail.includes(index)),
        details.join("\n"),
      ).toBe(true);
  });
});

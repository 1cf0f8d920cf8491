/**
 * A deployment whose onboarding index was never migrated: the list and the feed answer 503
 * INDEX_NOT_READY in the one error shape, naming the command that creates the tables, and
 * `/api/health` says the index is not ready (and what is missing). This file's database loses
 * its tables; every other test file has its own.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api } from "../helpers/sessions";
import { bearer, host } from "./helpers";

const db = env.ONBOARDING_INDEX;
const health = async () => (await (await api("/api/health")).json<{ index: Record<string, unknown> }>()).index;

describe("an index without its tables", () => {
  it("is ready while every table is there", async () => {
    expect(await health()).toEqual({ ready: true });
  });

  it("answers the list and the feed with 503 naming the migrations, and health says it is not ready", async () => {
    const drop = ["DROP TRIGGER events_keep_cursor", "DROP TABLE event_cursors", "DROP TABLE events"];
    await db.batch(drop.map((sql) => db.prepare(sql)));
    await notReady(await api("/api/events", { headers: bearer() }));
    await notReady(await api("/api/events?after=msg_0001", { headers: bearer() }));
    expect(await health()).toEqual({
      ready: false,
      missing: ["events", "event_cursors", "events_keep_cursor"],
      fix: "npx wrangler d1 migrations apply ONBOARDING_INDEX --remote --env <environment>",
    });
    await db.prepare("DROP TABLE onboardings").run();
    await notReady(await host(""));
    expect((await health()).missing).toEqual(["onboardings", "events", "event_cursors", "events_keep_cursor"]);
  });
});

/** 503 INDEX_NOT_READY in the one error shape, its message naming the command. */
async function notReady(response: Response): Promise<void> {
  expect(response.status).toBe(503);
  const body = await response.json<{ code: number; message: string; details: { reason: string }[] }>();
  expect(body.code).toBe(14);
  expect(body.details[0]!.reason).toBe("INDEX_NOT_READY");
  expect(body.message).toContain("wrangler d1 migrations apply ONBOARDING_INDEX --remote --env <environment>");
}

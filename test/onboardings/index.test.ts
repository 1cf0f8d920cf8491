/**
 * The onboarding index in D1 and the host API's list and feed that read it: filters, keyset
 * pagination, limits and every refusal; a row that never moves backwards; events in one order.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  deleteOnboardingRows,
  indexedVersion,
  queryEvents,
  writeOnboardingRow,
  type OnboardingRow,
} from "../../src/onboardings/index/store";
import {
  mintOnboardingId,
  type OnboardingEventType,
  type OnboardingStatus,
  type OnboardingView,
} from "../../src/protocol/index";
import { api, errorReason } from "../helpers/sessions";
import { accountAddress, bearer, host } from "./helpers";

const db = env.ONBOARDING_INDEX;
const T0 = Date.parse("2026-11-01T00:00:00.000Z");

/** An onboarding as the host sees it, created `second` seconds after T0. */
function view(second: number, fields: Partial<OnboardingView> = {}): OnboardingView {
  const at = new Date(T0 + second * 1000).toISOString();
  return {
    id: mintOnboardingId(),
    status: "open",
    operator: accountAddress(),
    label: "",
    reference: null,
    url: "https://edge.test/?onboarding=x",
    return_url: null,
    payout: null,
    payout_source: null,
    authorization: { required: null },
    node: {},
    created_at: at,
    updated_at: at,
    expires_at: new Date(T0 + 7 * 86_400_000).toISOString(),
    ...fields,
  };
}

let eventCount = 0;
/** An event of `onboarding` entering its status, with the webhook's exact body. */
function eventOf(onboarding: OnboardingView) {
  const type = `onboarding.${onboarding.status}` as OnboardingEventType;
  const id = `msg_${(++eventCount).toString(16).padStart(4, "0")}${crypto.randomUUID().replaceAll("-", "").slice(4)}`;
  return {
    id,
    type,
    created_at: onboarding.updated_at,
    body: JSON.stringify({ type, timestamp: onboarding.updated_at, data: onboarding }),
  };
}

/** Writes `count` onboardings of one operator, one a second, and returns them oldest first. */
async function seed(
  count: number,
  fields: (i: number) => Partial<OnboardingView> = () => ({}),
): Promise<OnboardingView[]> {
  const operator = accountAddress();
  const views = Array.from({ length: count }, (_, i) => view(i, { operator, ...fields(i) }));
  for (const onboarding of views) await writeOnboardingRow(db, { onboarding, version: 1, events: [] });
  return views;
}

type ListAnswer = { data: OnboardingView[]; has_more: boolean };
type FeedAnswer = {
  data: { seq: number; id: string; type: string; created_at: string; onboarding_id: string; data: OnboardingView }[];
  has_more: boolean;
};

async function list(query: string): Promise<ListAnswer> {
  const response = await host(`?${query}`);
  expect(response.status, await response.clone().text()).toBe(200);
  expect(response.headers.get("cache-control")).toBe("no-store");
  return response.json();
}

const feedRequest = (query: string, headers: HeadersInit = bearer()) => api(`/api/events?${query}`, { headers });

async function feed(query: string): Promise<FeedAnswer> {
  const response = await feedRequest(query);
  expect(response.status, await response.clone().text()).toBe(200);
  expect(response.headers.get("cache-control")).toBe("no-store");
  return response.json();
}

describe("GET /api/onboardings", () => {
  it("lists newest first, as the host sees each onboarding", async () => {
    const views = await seed(3);
    const page = await list(`operator=${views[0]!.operator}`);
    expect(page).toEqual({ data: [...views].reverse(), has_more: false });
  });

  it("pages by starting_after through every onboarding once, ties on created_at broken by id", async () => {
    // Seven onboardings, the middle three created in the same millisecond.
    const views = await seed(7, (i) => (i >= 2 && i <= 4 ? { created_at: new Date(T0 + 2000).toISOString() } : {}));
    const operator = views[0]!.operator;
    const seen: string[] = [];
    let cursor = "";
    let pages = 0;
    for (;;) {
      const page = await list(`operator=${operator}&limit=2${cursor}`);
      pages++;
      seen.push(...page.data.map((o) => o.id));
      if (!page.has_more) break;
      expect(page.data).toHaveLength(2);
      cursor = `&starting_after=${page.data.at(-1)!.id}`;
    }
    expect(pages).toBe(4);
    const newestFirst = [...views].sort((a, b) =>
      a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1,
    );
    expect(seen).toEqual(newestFirst.map((o) => o.id));
  });

  it("holds 20 unless asked, and at most 100", async () => {
    const views = await seed(101);
    const operator = views[0]!.operator;
    const first = await list(`operator=${operator}`);
    expect(first.data).toHaveLength(20);
    expect(first.has_more).toBe(true);
    const most = await list(`operator=${operator}&limit=100`);
    expect(most.data).toHaveLength(100);
    expect(most.has_more).toBe(true);
    const last = await list(`operator=${operator}&limit=100&starting_after=${most.data.at(-1)!.id}`);
    expect(last).toEqual({ data: [views[0]], has_more: false });
  });

  it("filters by status, reference, operator, payout and the creation time, together", async () => {
    const payout = accountAddress();
    const statuses: OnboardingStatus[] = ["open", "connected", "authorized", "applied", "cancelled", "connected"];
    const views = await seed(6, (i) => ({
      status: statuses[i]!,
      reference: `order-${i % 2}`,
      payout: i > 0 ? payout : null,
    }));
    const operator = views[0]!.operator;
    const ids = (page: ListAnswer) => page.data.map((o) => o.id);
    const at = (i: number) => encodeURIComponent(new Date(T0 + i * 1000).toISOString());
    expect(ids(await list(`operator=${operator}&status=connected`))).toEqual([views[5]!.id, views[1]!.id]);
    expect(ids(await list(`operator=${operator}&reference=order-0`))).toEqual([
      views[4]!.id,
      views[2]!.id,
      views[0]!.id,
    ]);
    expect(ids(await list(`payout=${payout}&status=applied`))).toEqual([views[3]!.id]);
    expect(ids(await list(`operator=${operator}&created_gte=${at(2)}&created_lt=${at(4)}`))).toEqual([
      views[3]!.id,
      views[2]!.id,
    ]);
    expect(
      ids(await list(`operator=${operator}&created_gte=2026-11-01&created_lt=2026-11-01T00:00:01%2B00:00`)),
    ).toEqual([views[0]!.id]);
    expect(ids(await list(`operator=${operator.toUpperCase()}&status=open`))).toEqual([views[0]!.id]);
    expect((await list(`operator=${operator}&status=expired`)).data).toEqual([]);
  });

  it.each([
    [
      "an unknown parameter",
      "sort=asc",
      "UNKNOWN_QUERY_PARAMETER",
      "sort",
      /takes status, reference, operator, payout, created_gte, created_lt, limit, starting_after/,
    ],
    ["a parameter given twice", "status=open&status=applied", "DUPLICATE_QUERY_PARAMETER", "status", /more than once/],
    ["limit 0", "limit=0", "INVALID_QUERY_PARAMETER", "limit", /limit must be a whole number from 1 to 100/],
    ["limit 101", "limit=101", "INVALID_QUERY_PARAMETER", "limit", /limit must be a whole number from 1 to 100/],
    ["a limit that is not a number", "limit=ten", "INVALID_QUERY_PARAMETER", "limit", /from 1 to 100/],
    ["an unknown status", "status=done", "INVALID_QUERY_PARAMETER", "status", /status must be one of open, connected/],
    ["a bad operator address", "operator=hope1nope", "INVALID_QUERY_PARAMETER", "operator", /operator/],
    ["a bad payout address", `payout=${accountAddress("other")}`, "INVALID_QUERY_PARAMETER", "payout", /payout/],
    ["a time that is not RFC 3339", "created_gte=yesterday", "INVALID_QUERY_PARAMETER", "created_gte", /RFC 3339/],
    ["a date that does not exist", "created_lt=2026-13-45", "INVALID_QUERY_PARAMETER", "created_lt", /not a real time/],
    ["an empty reference", "reference=", "INVALID_QUERY_PARAMETER", "reference", /reference/],
    ["a cursor that is not an id", "starting_after=42", "INVALID_QUERY_PARAMETER", "starting_after", /ob_/],
    [
      "a cursor no onboarding has",
      `starting_after=${mintOnboardingId()}`,
      "CURSOR_NOT_FOUND",
      "starting_after",
      /starting_after must be the id of an item of an earlier page/,
    ],
  ])("refuses %s with 400 naming the parameter and the rule", async (_name, query, reason, parameter, message) => {
    const response = await host(`?${query}`);
    expect(response.status).toBe(400);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const body = await response.json<{
      message: string;
      details: { reason: string; metadata: Record<string, string> }[];
    }>();
    expect(body.details[0]!.reason).toBe(reason);
    expect(body.details[0]!.metadata.parameter).toBe(parameter);
    expect(body.message).toMatch(message);
  });

  it("is for the host's servers only: a key, no CORS", async () => {
    const anonymous = await api("/api/onboardings", { headers: { origin: "https://evil.example" } });
    expect(anonymous.status).toBe(401);
    expect(await errorReason(anonymous)).toBe("MISSING_CREDENTIALS");
    const keyed = await host("", { headers: { origin: "https://evil.example" } });
    expect(keyed.status).toBe(200);
    expect(keyed.headers.get("access-control-allow-origin")).toBeNull();
    const inUrl = await host("?api_key=x");
    expect(await errorReason(inUrl)).toBe("CREDENTIALS_IN_URL");
  });

  it("refuses other methods than GET and POST, and query parameters on the other host routes", async () => {
    const put = await host("", { method: "PUT" });
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("GET, HEAD, POST");
    const read = await host(`/${mintOnboardingId()}?expand=events`);
    expect(read.status).toBe(400);
    expect(await errorReason(read)).toBe("UNKNOWN_QUERY_PARAMETER");
  });
});

describe("the index's rows", () => {
  it("never move backwards: an older or equal version changes nothing", async () => {
    const opened = view(0);
    const connected = {
      ...opened,
      status: "connected" as const,
      payout: accountAddress(),
      updated_at: new Date(T0 + 5000).toISOString(),
    };
    const authorized = { ...connected, status: "authorized" as const, updated_at: new Date(T0 + 9000).toISOString() };
    await writeOnboardingRow(db, { onboarding: connected, version: 2, events: [] });
    await writeOnboardingRow(db, { onboarding: opened, version: 1, events: [] });
    expect(await indexedVersion(db, opened.id)).toBe(2);
    await writeOnboardingRow(db, { onboarding: authorized, version: 2, events: [] });
    expect((await list(`operator=${opened.operator}`)).data).toEqual([connected]);
    await writeOnboardingRow(db, { onboarding: authorized, version: 3, events: [] });
    expect((await list(`operator=${opened.operator}`)).data).toEqual([authorized]);
    expect((await list(`operator=${opened.operator}&status=connected`)).data).toEqual([]);
  });

  it("never move an event's given-up mark backwards: an older version changes no mark, nor adds an event", async () => {
    const onboarding = view(0, { status: "connected" });
    const event = eventOf(onboarding);
    const marked = "2026-11-04T00:00:00.000Z";
    const marks = async () =>
      (await db.prepare("SELECT id, failed_at FROM events WHERE onboarding_id = ?").bind(onboarding.id).all()).results;
    // Version 3 gave the event up; version 2 (before it) lands after it and must not clear the mark.
    await writeOnboardingRow(db, { onboarding, version: 3, events: [{ ...event, failed_at: marked }] });
    await writeOnboardingRow(db, { onboarding, version: 2, events: [{ ...event, failed_at: null }] });
    expect(await marks()).toEqual([{ id: event.id, failed_at: marked }]);
    const feedMark = (await feed(`onboarding=${onboarding.id}`)).data.map(
      (e) => (e as unknown as { failed_at: unknown }).failed_at,
    );
    expect(feedMark).toEqual([marked]);
    // Version 4 resent it (the mark cleared); version 3's late write sets no mark again.
    await writeOnboardingRow(db, { onboarding, version: 4, events: [{ ...event, failed_at: null }] });
    await writeOnboardingRow(db, { onboarding, version: 3, events: [{ ...event, failed_at: marked }] });
    expect(await marks()).toEqual([{ id: event.id, failed_at: null }]);
    // The same version again changes nothing either, and an older write adds no event of its own.
    await writeOnboardingRow(db, { onboarding, version: 4, events: [{ ...event, failed_at: marked }] });
    const stray = eventOf(onboarding);
    await writeOnboardingRow(db, { onboarding, version: 1, events: [event, stray] });
    expect(await marks()).toEqual([{ id: event.id, failed_at: null }]);
    // A newer version moves the mark, and adds its new event.
    await writeOnboardingRow(db, { onboarding, version: 5, events: [{ ...event, failed_at: marked }, stray] });
    expect(await marks()).toEqual([
      { id: event.id, failed_at: marked },
      { id: stray.id, failed_at: null },
    ]);
  });

  it("two writes landing in the wrong order leave the newer marks (as the lease lets them overlap)", async () => {
    const onboarding = view(0, { status: "connected" });
    const [a, b] = [eventOf(onboarding), eventOf(onboarding)];
    const older = {
      onboarding,
      version: 7,
      events: [
        { ...a, failed_at: null },
        { ...b, failed_at: null },
      ],
    };
    const newer = { onboarding, version: 8, events: [{ ...a, failed_at: "2026-11-04T00:00:00.000Z" }, b] };
    await Promise.all([writeOnboardingRow(db, newer), writeOnboardingRow(db, older)]);
    await writeOnboardingRow(db, older);
    const rows = await db
      .prepare("SELECT failed_at FROM events WHERE onboarding_id = ? ORDER BY seq")
      .bind(onboarding.id)
      .all();
    expect(rows.results).toEqual([{ failed_at: "2026-11-04T00:00:00.000Z" }, { failed_at: null }]);
    expect(await indexedVersion(db, onboarding.id)).toBe(8);
  });

  it("are deleted with their onboarding, events and all", async () => {
    const onboarding = view(0, { status: "connected" });
    const event = eventOf(onboarding);
    await writeOnboardingRow(db, { onboarding, version: 2, events: [event] });
    await deleteOnboardingRows(db, onboarding.id);
    expect(await indexedVersion(db, onboarding.id)).toBeNull();
    expect((await queryEvents(db, { onboarding: onboarding.id }))?.data).toEqual([]);
  });
});

describe("GET /api/events", () => {
  /** Two onboardings moving through their states, interleaved; each write carries every event so far. */
  async function interleaved() {
    const a = view(0);
    const b = view(1);
    const steps: [OnboardingView, OnboardingStatus][] = [
      [a, "connected"],
      [b, "connected"],
      [a, "authorized"],
      [b, "cancelled"],
      [a, "applied"],
    ];
    const written = new Map<
      string,
      { onboarding: OnboardingView; version: number; events: OnboardingRow["events"][number][] }
    >();
    const order: string[] = [];
    for (const [{ id }, status] of steps) {
      const row = written.get(id) ?? { onboarding: id === a.id ? a : b, version: 1, events: [] };
      const onboarding = { ...row.onboarding, status };
      const event = eventOf(onboarding);
      order.push(event.id);
      const next = { onboarding, version: row.version + 1, events: [...row.events, event] };
      written.set(id, next);
      await writeOnboardingRow(db, next);
    }
    return { a, b, order };
  }

  it(
    "lists events oldest first in the order they were " + "first indexed, each with its onboarding as it was then",
    async () => {
      const { a, order } = await interleaved();
      const page = await feed(`onboarding=${a.id}`);
      expect(page.data.map((e) => [e.type, e.data.status])).toEqual([
        ["onboarding.connected", "connected"],
        ["onboarding.authorized", "authorized"],
        ["onboarding.applied", "applied"],
      ]);
      expect(page.data[0]).toEqual({
        seq: expect.any(Number),
        id: order[0],
        type: "onboarding.connected",
        created_at: a.updated_at,
        onboarding_id: a.id,
        failed_at: null,
        data: { ...a, status: "connected" },
      });
      const all = await feed(`after=${order[0]}&limit=100`);
      expect(all.data.map((e) => e.id).slice(0, 4)).toEqual(order.slice(1));
    },
  );

  it("catches a host up from the last event it saw, a page at a time, and finds events written later", async () => {
    const { order } = await interleaved();
    const first = await feed(`after=${order[0]}&limit=2`);
    expect(first.data.map((e) => e.id)).toEqual(order.slice(1, 3));
    expect(first.has_more).toBe(true);
    const rest = await feed(`after=${first.data.at(-1)!.id}&limit=2`);
    expect(rest.data.map((e) => e.id)).toEqual(order.slice(3, 5));
    const later = await interleaved();
    const caughtUp = await feed(`after=${order[4]}&limit=100`);
    expect(caughtUp.data.map((e) => e.id)).toEqual(later.order);
    expect(caughtUp.has_more).toBe(false);
  });

  it("reads on from a deleted onboarding's last event, by its seq and by its id", async () => {
    const { b, order } = await interleaved();
    const seen = await feed(`after=${order[0]}&limit=100`);
    const last = seen.data.find((e) => e.id === order[3])!;
    expect(seen.data.map((e) => e.seq)).toEqual([...seen.data.map((e) => e.seq)].sort((x, y) => x - y));
    // The host saw b's last event; then b's retention ended.
    await deleteOnboardingRows(db, b.id);
    const bySeq = await feed(`after=${last.seq}&limit=100`);
    const byId = await feed(`after=${last.id}&limit=100`);
    expect(bySeq.data.map((e) => e.id).slice(0, 1)).toEqual([order[4]]);
    expect(byId.data).toEqual(bySeq.data);
    // Fully caught up, after a deleted event: an empty page, not a refusal.
    const end = bySeq.data.at(-1)!;
    await deleteOnboardingRows(db, end.onboarding_id);
    expect(await feed(`after=${end.seq}`)).toEqual({ data: [], has_more: false });
    expect((await feed(`after=${end.id}`)).data.every((e) => e.seq > end.seq)).toBe(true);
  });

  it("filters by type", async () => {
    const { order } = await interleaved();
    const page = await feed(`after=${order[0]}&type=onboarding.cancelled`);
    expect(page.data.map((e) => e.id)).toEqual([order[3]]);
  });

  it.each([
    ["an unknown parameter", "since=1", "UNKNOWN_QUERY_PARAMETER", "since"],
    ["an after that is not an event id", "after=ob_1", "INVALID_QUERY_PARAMETER", "after"],
    ["an after that is not a seq", "after=-1", "INVALID_QUERY_PARAMETER", "after"],
    ["an after no event has", "after=msg_0000", "CURSOR_NOT_FOUND", "after"],
    ["an unknown type", "type=onboarding.opened", "INVALID_QUERY_PARAMETER", "type"],
    ["a bad onboarding id", "onboarding=ob_XYZ", "INVALID_QUERY_PARAMETER", "onboarding"],
    ["limit 101", "limit=101", "INVALID_QUERY_PARAMETER", "limit"],
  ])("refuses %s with 400 naming the parameter", async (_name, query, reason, parameter) => {
    const response = await feedRequest(query);
    expect(response.status).toBe(400);
    const body = await response.json<{ details: { reason: string; metadata: Record<string, string> }[] }>();
    expect(body.details[0]).toMatchObject({ reason, metadata: { parameter } });
  });

  it("is for the host's servers only", async () => {
    const response = await feedRequest("", {});
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toMatch(/^Bearer /);
    const post = await api("/api/events", { method: "POST", headers: bearer() });
    expect(post.status).toBe(405);
  });
});

/**
 * Real answers against the served /api/openapi.json, every key declared (test/helpers/openapi.ts).
 * An answer that grows a key, or changes one's type, without its zod schema (src/protocol/) fails
 * here. New endpoints add their answers with `expectDocumented(response, method, path)`.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  WALLET,
  api,
  confirm,
  createPayload,
  createSession,
  mintSessionId,
  postJson,
  proofFor,
} from "../helpers/sessions";
import { expectDocumented, schemaProblems, servedDocument } from "../helpers/openapi";
import {
  accountAddress,
  authorizeOnChain,
  bearer,
  host,
  hostPost,
  page,
  pairByRelay,
  planAnswers,
  settle,
  wakeUntil,
} from "../onboardings/helpers";

// wake-ups move the clock on.
afterEach(() => vi.useRealTimers());

const ONBOARDING = "/api/onboardings/{id}";
const CUSTOMER = "/api/onboarding-pages/{id}";

describe("the onboarding answers are what the served document says", () => {
  it("create, repeat, read, the customer view, pairing, the claim, the events log and cancel", async () => {
    const operator = accountAddress();
    const payout = accountAddress();
    const body = { operator, label: "rack-7", reference: "order-42", return_url: "https://host.example/done" };
    const key = { "idempotency-key": crypto.randomUUID() };
    const created = await expectDocumented(await hostPost("", body, key), "post", "/api/onboardings");
    expect(created).toMatchObject({ status: "open", reference: "order-42" });
    const { id } = created;
    expect(await expectDocumented(await hostPost("", body, key), "post", "/api/onboardings")).toMatchObject({ id });
    await expectDocumented(await host(`/${id}`), "get", ONBOARDING);
    await expectDocumented(await page.view(id), "get", CUSTOMER);

    // The first delivery fails (an error attempt, then a status one), so the log shows both kinds.
    await planAnswers(id, ["down"]);
    expect(await expectDocumented(await pairByRelay(id, payout), "post", `${CUSTOMER}/payout`)).toMatchObject({
      status: "connected",
      host: "host.example",
    });
    const tx = await authorizeOnChain(payout, operator);
    await expectDocumented(await page.authorization(id, tx.txhash), "post", `${CUSTOMER}/authorization`);
    const eventsLog = async () =>
      expectDocumented<{ events: { attempts: unknown[]; delivered_at: string | null }[] }>(
        await host(`/${id}/events`),
        "get",
        `${ONBOARDING}/events`,
      );
    await wakeUntil(id, async () => (await eventsLog()).events.every((e) => e.delivered_at !== null));

    const authorized = await expectDocumented(await host(`/${id}`), "get", ONBOARDING);
    expect(authorized).toMatchObject({ status: "authorized", authorization: { required: true, txhash: tx.txhash } });
    expect(authorized.commands.update_node).toContain(payout);
    const log = await eventsLog();
    expect(log.events[0]!.attempts).toEqual([
      expect.objectContaining({ error: expect.any(String) }),
      expect.objectContaining({ status: 204 }),
    ]);
    expect(await expectDocumented(await page.view(id), "get", CUSTOMER)).toMatchObject({ status: "authorized" });
    expect(await expectDocumented(await hostPost(`/${id}/cancel`, ""), "post", `${ONBOARDING}/cancel`)).toMatchObject({
      status: "cancelled",
    });
    await expectDocumented(await host(`/${id}/events`), "get", `${ONBOARDING}/events`);
  });

  it("the list and the feed, as the onboarding's own writes of the index make them, and their refusals", async () => {
    const operator = accountAddress();
    const { id } = await hostPost("", { operator, reference: "listed-42" }).then((r) => r.json<{ id: string }>());
    await pairByRelay(id, operator);
    await settle(id);
    const list = await expectDocumented<{ data: { id: string }[] }>(
      await host(`?operator=${operator}`),
      "get",
      "/api/onboardings",
    );
    expect(list.data.map((o) => o.id)).toEqual([id]);
    const feed = await expectDocumented<{ data: { type: string }[] }>(
      await api(`/api/events?onboarding=${id}`, { headers: bearer() }),
      "get",
      "/api/events",
    );
    expect(feed.data.map((e) => e.type)).toEqual(["onboarding.connected", "onboarding.authorized"]);
    await expectDocumented(await host("?limit=101"), "get", "/api/onboardings");
    await expectDocumented(await api(`/api/events?after=msg_0`, { headers: bearer() }), "get", "/api/events");
    await expectDocumented(
      await api("/api/webhook/retry", { method: "POST", headers: bearer() }),
      "post",
      "/api/webhook/retry",
    );
  });

  it("the error answers too", async () => {
    await expectDocumented(await host(`/ob_${"0".repeat(32)}`), "get", ONBOARDING);
    await expectDocumented(await hostPost("", { operator: "nope" }), "post", "/api/onboardings");
    await expectDocumented(await page.view(`ob_${"0".repeat(32)}`), "get", CUSTOMER);
  });
});

describe("the session answers are what the served document says", () => {
  it("create, read, confirm and cancel", async () => {
    const id = mintSessionId();
    await expectDocumented(await postJson(WALLET, createPayload(id)), "post", WALLET);
    await expectDocumented(await api(`${WALLET}/${id}`), "get", `${WALLET}/{id}`);
    await expectDocumented(await confirm(id, proofFor(id)), "post", `${WALLET}/{id}/confirm`);
    const other = await createSession();
    await expectDocumented(await api(`${WALLET}/${other}`, { method: "DELETE" }), "delete", `${WALLET}/{id}`);
  });
});

describe("the check itself", () => {
  it("refuses an undeclared key, a missing key, a wrong type and a keyword it does not know", async () => {
    const doc = await servedDocument();
    const onboarding = { $ref: "#/components/schemas/Onboarding" };
    const created = await (await hostPost("", { operator: accountAddress() })).json<Record<string, unknown>>();
    expect(schemaProblems(doc, onboarding, created)).toEqual([]);
    expect(schemaProblems(doc, onboarding, { ...created, secret: "x" })).toEqual(['$: key "secret" is not declared']);
    expect(schemaProblems(doc, onboarding, { ...created, authorization: { required: null, extra: 1 } })).toEqual([
      '$.authorization: key "extra" is not declared',
    ]);
    const { label: _label, ...unlabelled } = created;
    expect(schemaProblems(doc, onboarding, unlabelled)).toEqual(['$: required key "label" is missing']);
    expect(schemaProblems(doc, onboarding, { ...created, status: "done" })).toHaveLength(1);
    expect(schemaProblems(doc, { type: "object" }, { any: 1 })).toEqual(['$: key "any" is not declared']);
    expect(schemaProblems(doc, { type: "string", contentEncoding: "base64" }, "x")).toEqual([
      '$: the check does not know the keyword "contentEncoding"',
    ]);
  });

  it("checks the document's formats: its times are RFC 3339 date-times and its links absolute URIs", async () => {
    const doc = await servedDocument();
    const onboarding = { $ref: "#/components/schemas/Onboarding" };
    const created = await (await hostPost("", { operator: accountAddress() })).json<Record<string, unknown>>();
    // The document gives a time its pattern too (zod writes both): the format is what must be named.
    expect(schemaProblems(doc, onboarding, { ...created, created_at: "2026-11-25 10:00:00" })).toContain(
      '$.created_at: "2026-11-25 10:00:00" is not a date-time',
    );
    expect(schemaProblems(doc, onboarding, { ...created, url: "/?onboarding=ob_1" })).toEqual([
      '$.url: "/?onboarding=ob_1" is not a uri',
    ]);
    expect(schemaProblems(doc, onboarding, { ...created, return_url: "host.example/back" })).toHaveLength(1);
    expect(schemaProblems(doc, { type: "string", format: "email" }, "a@b.c")).toEqual([
      '$: the check does not know the format "email"',
    ]);
  });
});

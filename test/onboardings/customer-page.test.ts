import { afterEach, describe, expect, it, vi } from "vitest";
import { mintOnboardingId } from "../../src/protocol/index";
import { ORIGIN, api, createSession, errorReason, postJson } from "../helpers/sessions";
import {
  accountAddress,
  authorizeOnChain,
  broadcast,
  config,
  createOnboarding,
  devnetNode,
  hostPost,
  page,
  pairByRelay,
  readOnboarding,
  settle,
  wake,
} from "./helpers";

afterEach(() => vi.useRealTimers());

/** Opens the page's push channel and collects every view it sends. */
async function subscribe(id: string, origin: string = ORIGIN) {
  const response = await api(`/api/onboarding-pages/${id}`, { headers: { upgrade: "websocket", origin } });
  const socket = response.webSocket;
  if (!socket) return { response, views: [] as Record<string, any>[], closed: Promise.resolve(0) };
  const views: Record<string, any>[] = [];
  socket.accept();
  socket.addEventListener("message", (event) => views.push(JSON.parse(event.data as string)));
  const closed = new Promise<number>((resolve) => socket.addEventListener("close", (event) => resolve(event.code)));
  return { response, views, closed };
}

describe("the customer's view", () => {
  it(
    "shows the host's operator and label, never its reference or commands, and names where " + "return_url leads",
    async () => {
      const node = await devnetNode("paying-authorized-payout");
      const created = await createOnboarding({
        operator: node.operator,
        label: "rack-9",
        reference: "secret-order",
        return_url: "https://host.example/back",
      });
      await page.payout(created.id, { source: "in_app", address: node.payout_recipient });
      await settle(created.id);
      const response = await page.view(created.id);
      expect(response.headers.get("cache-control")).toBe("no-store");
      const view = await response.json<Record<string, unknown>>();
      expect(view).toMatchObject({
        id: created.id,
        status: "applied",
        operator: node.operator,
        label: "rack-9",
        return_url: "https://host.example/back",
        host: "host.example",
      });
      expect(view).not.toHaveProperty("reference");
      expect(view).not.toHaveProperty("commands");
      expect(JSON.stringify(view)).not.toContain("secret-order");
    },
  );

  it("answers 404 for an unknown id and 400 for a malformed one", async () => {
    expect(await errorReason(await page.view(mintOnboardingId()))).toBe("ONBOARDING_NOT_FOUND");
    expect(await errorReason(await page.view("ob_1"))).toBe("INVALID_ONBOARDING_ID");
    // 128 bits: 32 hex characters exactly.
    for (const id of [`ob_${"a".repeat(31)}`, `ob_${"a".repeat(33)}`])
      expect(await errorReason(await page.view(id)), id).toBe("INVALID_ONBOARDING_ID");
  });

  it("pushes each change over a WebSocket and closes once the onboarding has ended", async () => {
    const node = await devnetNode("paying-authorized-payout");
    const created = await createOnboarding({ operator: node.operator });
    const { response, views, closed } = await subscribe(created.id);
    expect(response.status).toBe(101);
    await page.payout(created.id, { source: "in_app", address: node.payout_recipient });
    await settle(created.id);
    expect(await closed).toBe(1000);
    // One view per stored change: the reading that found the authorization also found the node paying it.
    expect(views.map((v) => v.status)).toEqual(["open", "connected", "applied"]);
    expect(views.at(-1)!.node.height).toBeGreaterThan(0);
    expect(views.at(-1)).not.toHaveProperty("reference");
  });

  it("refuses a WebSocket from a page of another origin", async () => {
    const created = await createOnboarding({ operator: accountAddress() });
    const { response } = await subscribe(created.id, "https://evil.example");
    expect(response.status).toBe(403);
    expect(await errorReason(response)).toBe("CROSS_ORIGIN");
  });
});

describe("pairing the payout", () => {
  it("takes a relayed payout from the pairing session itself, never from the page's word", async () => {
    const created = await createOnboarding({ operator: accountAddress() });
    const pending = await createSession();
    const notYet = await page.payout(created.id, { session_id: pending });
    expect(notYet.status).toBe(409);
    expect(await errorReason(notYet)).toBe("SESSION_NOT_CONNECTED");
    const payout = accountAddress();
    expect((await pairByRelay(created.id, payout)).status).toBe(200);
    expect(await readOnboarding(created.id)).toMatchObject({ status: "connected", payout, payout_source: "relay" });
  });

  it("keeps the first payout: the same again is 200, another is 409 and changes nothing", async () => {
    const created = await createOnboarding({ operator: accountAddress() });
    const payout = accountAddress();
    expect((await page.payout(created.id, { source: "in_app", address: payout })).status).toBe(200);
    expect((await page.payout(created.id, { source: "in_app", address: payout.toUpperCase() })).status).toBe(200);
    const other = await page.payout(created.id, { source: "in_app", address: accountAddress() });
    expect(other.status).toBe(409);
    expect(await errorReason(other)).toBe("ONBOARDING_ALREADY_PAIRED");
    expect((await readOnboarding(created.id)).payout).toBe(payout);
  });

  it.each([
    ["an unknown field", { source: "in_app", address: "x", operator: "y" }],
    ["a bad address", { source: "in_app", address: "hope1xyz" }],
    ["another source", { source: "relay", address: accountAddress() }],
    ["a malformed session id", { session_id: "cs_nope" }],
  ])("refuses %s with 400", async (_name, body) => {
    const created = await createOnboarding({ operator: accountAddress() });
    const response = await page.payout(created.id, body);
    expect(response.status).toBe(400);
    expect(await errorReason(response)).toBe("INVALID_FIELD");
  });

  it(
    "limits the page's bodies to 1 KiB: one byte over is 413 on the payout and the authorization, one at the limit " +
      "is read",
    async () => {
      const created = await createOnboarding({ operator: accountAddress() });
      /**
       * A JSON body of exactly `bytes` bytes, padded in a field the schema refuses (so a body that is read answers
       * 400).
       */
      const sized = (fields: Record<string, unknown>, bytes: number) => {
        const bare = JSON.stringify({ ...fields, pad: "" });
        return JSON.stringify({ ...fields, pad: "x".repeat(bytes - bare.length) });
      };
      for (const [path, fields] of [
        ["payout", { source: "in_app", address: accountAddress() }],
        ["authorization", { txhash: "AB".repeat(32) }],
      ] as const) {
        const over = await postJson(`/api/onboarding-pages/${created.id}/${path}`, sized(fields, 1025), {
          headers: { origin: ORIGIN },
        });
        expect(over.status, path).toBe(413);
        expect(await errorReason(over)).toBe("BODY_TOO_LARGE");
        const at = await postJson(`/api/onboarding-pages/${created.id}/${path}`, sized(fields, 1024), {
          headers: { origin: ORIGIN },
        });
        expect(at.status, path).toBe(400);
        expect(await errorReason(at)).toBe("INVALID_FIELD");
      }
      expect((await readOnboarding(created.id)).status).toBe("open");
    },
  );

  it(
    "refuses a page of a sibling subdomain (Sec-Fetch-Site: same-site) on the payout and the " + "authorization",
    async () => {
      const created = await createOnboarding({ operator: accountAddress() });
      for (const [path, body] of [
        ["payout", { source: "in_app", address: accountAddress() }],
        ["authorization", { txhash: "AB".repeat(32) }],
      ] as const) {
        const response = await postJson(`/api/onboarding-pages/${created.id}/${path}`, body, {
          headers: { "sec-fetch-site": "same-site" },
        });
        expect(response.status, path).toBe(403);
        expect(await errorReason(response)).toBe("CROSS_ORIGIN");
      }
      expect((await readOnboarding(created.id)).status).toBe("open");
    },
  );

  it("refuses a page of another origin, and says plainly when the onboarding was cancelled", async () => {
    const created = await createOnboarding({ operator: accountAddress() });
    const foreign = await postJson(
      `/api/onboarding-pages/${created.id}/payout`,
      { source: "in_app", address: accountAddress() },
      { headers: { origin: "https://evil.example" } },
    );
    expect(foreign.status).toBe(403);
    await hostPost(`/${created.id}/cancel`, {});
    const late = await page.payout(created.id, { source: "in_app", address: accountAddress() });
    expect(late.status).toBe(410);
    expect(await errorReason(late)).toBe("ONBOARDING_CANCELLED");
    expect((await page.view(created.id)).status).toBe(200);
  });
});

describe("the in-app authorization's signer", () => {
  it("stops the onboarding when the authorization was signed by another address than the paired payout", async () => {
    const operator = (await devnetNode("paying-itself")).operator;
    const created = await createOnboarding({ operator });
    const paired = accountAddress();
    await page.payout(created.id, { source: "in_app", address: paired });
    // Someone else's wallet authorized the operator and its hash reached the page.
    const intruder = accountAddress();
    const tx = await authorizeOnChain(intruder, operator);
    const response = await page.authorization(created.id, tx.txhash);
    expect(response.status).toBe(409);
    const body = await response.json<{ message: string; details: { reason: string }[] }>();
    expect(body.details[0]!.reason).toBe("SIGNER_MISMATCH");
    expect(body.message).toContain(intruder);
    const stopped = await readOnboarding(created.id);
    expect(stopped).toMatchObject({ status: "cancelled", problem: { reason: "SIGNER_MISMATCH" } });
    expect(stopped.problem.message).toContain(intruder);
  });

  it("records the hash of an authorization signed by the payout and reads the chain at once", async () => {
    const operator = (await devnetNode("paying-itself")).operator;
    const created = await createOnboarding({ operator });
    const payout = accountAddress();
    await page.payout(created.id, { source: "in_app", address: payout });
    const tx = await authorizeOnChain(payout, operator);
    expect((await page.authorization(created.id, tx.txhash.toLowerCase())).status).toBe(200);
    await settle(created.id);
    expect(await readOnboarding(created.id)).toMatchObject({
      status: "authorized",
      authorization: { txhash: tx.txhash, height: Number(tx.height) },
    });
  });

  it("keeps a hash no block holds yet and refuses one that authorizes nothing", async () => {
    const operator = (await devnetNode("paying-itself")).operator;
    const created = await createOnboarding({ operator });
    const payout = accountAddress();
    await page.payout(created.id, { source: "in_app", address: payout });
    expect((await page.authorization(created.id, "AB".repeat(32))).status).toBe(200);
    const send = await broadcast(payout, [
      {
        typeUrl: "/cosmos.bank.v1beta1.MsgSend",
        value: { fromAddress: payout, toAddress: operator, amount: [{ denom: config.nativeDenom, amount: "1" }] },
      },
    ]);
    const unrelated = await page.authorization(created.id, send.txhash);
    expect(unrelated.status).toBe(400);
    expect(await errorReason(unrelated)).toBe("NOT_AN_AUTHORIZATION");
    expect((await readOnboarding(created.id)).status).toBe("connected");
    expect((await page.authorization(created.id, "not-a-hash")).status).toBe(400);
  });

  it("refuses a claim before any payout is paired", async () => {
    const created = await createOnboarding({ operator: accountAddress() });
    const response = await page.authorization(created.id, "AB".repeat(32));
    expect(response.status).toBe(409);
    expect(await errorReason(response)).toBe("ONBOARDING_NOT_PAIRED");
  });
});

describe("expiry", () => {
  it("expires an open onboarding at expires_at, tells the host, and refuses a late pairing with 410", async () => {
    const created = await createOnboarding({ operator: accountAddress() });
    // The only alarm of an open onboarding is its expiry.
    await wake(created.id);
    const expired = await readOnboarding(created.id);
    expect(expired.status).toBe("expired");
    const late = await page.payout(created.id, { source: "in_app", address: accountAddress() });
    expect(late.status).toBe(410);
    expect(await errorReason(late)).toBe("ONBOARDING_EXPIRED");
    const cancel = await hostPost(`/${created.id}/cancel`, {});
    expect(await errorReason(cancel)).toBe("ONBOARDING_EXPIRED");
  });
});

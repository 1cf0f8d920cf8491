/** The devnet's contract, which the wallet simulator, browser tests and fault runs rely on. */
import { describe, expect, it } from "vitest";
import { DEVNET, freshAddress, json, tag } from "./helpers";

const authorize = (body: unknown) => fetch(`${DEVNET}/__devnet/authorizations`, { method: "POST", body: JSON.stringify(body) });

describe("devnet operator authorizations", () => {
  it("records one (201), refuses the same pair (409) and self authorization (400), then lists it", async () => {
    const payout = freshAddress();
    const operator = freshAddress();
    const created = await authorize({ payout_recipient: payout, operator, label: "rack-b-7" });
    expect(created.status).toBe(201);
    const entry = await json(created);
    expect(entry).toEqual({ payout_recipient: payout, operator, label: "rack-b-7", authorized_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) });

    const again = await authorize({ payout_recipient: payout, operator, label: "other" });
    expect(again.status).toBe(409);
    expect(await json(again)).toMatchObject({ code: 6, message: expect.stringContaining("authorization already exists"), details: [] });

    const self = await authorize({ payout_recipient: payout, operator: payout, label: "" });
    expect(self.status).toBe(400);
    expect(await json(self)).toMatchObject({ code: 3, message: expect.stringContaining("self authorization") });

    const bad = await authorize({ payout_recipient: payout, operator: "cosmos1notanaddress", label: "" });
    expect(bad.status).toBe(400);

    const listed = await json<{ operator_authorizations: unknown[]; pagination: unknown }>(
      await fetch(`${DEVNET}/chain/incentives/v1/operator_authorizations/${payout}`),
    );
    expect(listed.operator_authorizations).toEqual([entry]);
    expect(listed.pagination).toEqual({ next_key: null, total: "0" });
  });
});

describe("devnet queries", () => {
  it("answers in Cosmos shapes with a block height that never goes back", async () => {
    const first = await fetch(`${DEVNET}/cosmos/bank/v1beta1/supply?pagination.count_total=true`);
    const h1 = Number(first.headers.get("x-cosmos-block-height"));
    expect(await json(first)).toEqual({ supply: [{ denom: "uchain", amount: expect.stringMatching(/^\d+$/) }], pagination: { next_key: null, total: "1" } });
    const h2 = Number((await fetch(`${DEVNET}/chain/trustscore/v1/epoch`)).headers.get("x-cosmos-block-height"));
    expect(h2).toBeGreaterThanOrEqual(h1);
  });

  it("pages with next_key and answers unknown ids, bad ids and unknown paths like a node", async () => {
    const page = await json<{ nodes: unknown[]; pagination: { next_key: string } }>(await fetch(`${DEVNET}/chain/incentives/v1/nodes?pagination.limit=4`));
    expect(page.nodes).toHaveLength(4);
    const rest = await json<{ nodes: unknown[]; pagination: { next_key: null } }>(
      await fetch(`${DEVNET}/chain/incentives/v1/nodes?pagination.key=${encodeURIComponent(page.pagination.next_key)}`),
    );
    expect(rest.nodes).toHaveLength(2);
    expect(rest.pagination.next_key).toBeNull();
    const missing = await fetch(`${DEVNET}/chain/campaign/v1/campaign/99`);
    expect([missing.status, (await json(missing)).code]).toEqual([404, 5]);
    const bad = await fetch(`${DEVNET}/chain/campaign/v1/treasury/abc`);
    expect([bad.status, (await json(bad)).code]).toEqual([400, 3]);
    expect((await fetch(`${DEVNET}/chain/nothing/here`)).status).toBe(404);
  });
});

describe("devnet counters and faults", () => {
  it("counts per mount tag and applies a fault the given number of times", async () => {
    const t = tag();
    const path = `/~${t}/chain/incentives/v1/params`;
    await fetch(`${DEVNET}/__devnet/faults`, { method: "POST", body: JSON.stringify({ tag: t, status: 503, times: 1 }) });
    expect((await fetch(`${DEVNET}${path}`)).status).toBe(503);
    expect((await fetch(`${DEVNET}${path}`)).status).toBe(200);
    const seen = await json<{ count: number; by_path: Record<string, number> }>(await fetch(`${DEVNET}/__devnet/requests?prefix=~${t}`));
    expect(seen).toMatchObject({ count: 2, by_path: { [`~${t}/chain/incentives/v1/params`]: 2 } });
  });
});

import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it, vi } from "vitest";
import { HOST_WEBHOOK_SECRET } from "../host-settings";
import { ORIGIN } from "../helpers/sessions";
import {
  accountAddress,
  authorizeOnChain,
  createOnboarding,
  deliveriesOf,
  devnetNode,
  hintBlock,
  page,
  pairByRelay,
  readOnboarding,
  settle,
  host,
  config,
  DEVNET,
} from "./helpers";

/** Makes the devnet answer requests under `prefix` as `spec` says (devnet/faults.ts), for the rest of the run. */
async function devnetFault(spec: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${DEVNET}/__devnet/faults`, { method: "POST", body: JSON.stringify(spec) });
  expect(response.status).toBe(201);
}

afterEach(() => vi.useRealTimers());

/** Every delivery for `id`, verified by the Standard Webhooks reference library (throws on any bad signature). */
async function verifiedEvents(id: string) {
  const verifier = new Webhook(HOST_WEBHOOK_SECRET);
  return (await deliveriesOf(id)).map((d) => ({
    ...(verifier.verify(d.body, d.headers) as { type: string; data: Record<string, any> }),
    webhookId: d.headers["webhook-id"],
  }));
}

describe("an onboarding verified on chain and handed to the host", () => {
  it(
    "goes open → connected → authorized → applied on the chain's word, each step a verified event " + "in order",
    async () => {
      const node = await devnetNode("paying-authorized-payout");
      const created = await createOnboarding({
        operator: node.operator,
        label: "rack-7",
        reference: "order-42",
        return_url: "https://host.example/done",
      });
      expect(created).toMatchObject({
        status: "open",
        operator: node.operator,
        label: "rack-7",
        reference: "order-42",
        payout: null,
        url: `${ORIGIN}/?onboarding=${created.id}`,
      });

      const paired = await pairByRelay(created.id, node.payout_recipient);
      expect(paired.status).toBe(200);
      expect(await paired.json()).toMatchObject({
        status: "connected",
        payout: node.payout_recipient,
        payout_source: "relay",
        host: "host.example",
      });

      await settle(created.id);
      const applied = await readOnboarding(created.id);
      expect(applied).toMatchObject({
        status: "applied",
        authorization: { required: true },
        node: { payout_recipient: node.payout_recipient },
      });
      expect(applied.authorization.height).toBeGreaterThan(0);
      expect(applied.node.height).toBeGreaterThan(0);
      expect(applied.commands.update_node).toContain(node.payout_recipient);

      // The wake-up also delivered the three events, in order, each signed.
      const events = await verifiedEvents(created.id);
      expect(events.map((e) => e.type)).toEqual([
        "onboarding.connected",
        "onboarding.authorized",
        "onboarding.applied",
      ]);
      expect(events.map((e) => e.data.status)).toEqual(["connected", "authorized", "applied"]);
      expect(events[0]!.data).toMatchObject({
        payout: node.payout_recipient,
        payout_source: "relay",
        reference: "order-42",
      });
      expect(events[0]!.data.commands).toBeUndefined();
      expect(events[1]!.data.commands.update_node).toContain(`--payout-recipient ${node.payout_recipient}`);
      expect(new Set(events.map((e) => e.webhookId)).size).toBe(3);

      const log = await (await host(`/${created.id}/events`)).json<{ events: Record<string, any>[] }>();
      expect(log.events.map((e) => [e.type, e.attempts.length, e.delivered_at !== null])).toEqual([
        ["onboarding.connected", 1, true],
        ["onboarding.authorized", 1, true],
        ["onboarding.applied", 1, true],
      ]);
      expect(log.events[0]!.attempts[0]).toMatchObject({ status: 204 });
    },
  );

  it("waits in connected until the payout key authorizes the operator on chain", async () => {
    const node = await devnetNode("paying-itself");
    const payout = accountAddress();
    const created = await createOnboarding({ operator: node.operator });
    await pairByRelay(created.id, payout);
    await settle(created.id);
    expect((await readOnboarding(created.id)).status).toBe("connected");

    const tx = await authorizeOnChain(payout, node.operator);
    expect(tx.code).toBe(0);
    // The block that holds it names the payout: the chain follower wakes the onboarding, which reads its state.
    await hintBlock(created.id, Number(tx.height));
    const authorized = await readOnboarding(created.id);
    expect(authorized).toMatchObject({
      status: "authorized",
      authorization: { required: true, height: Number(tx.height) },
    });
    // The node still pays someone else: the host has not applied it yet.
    expect(authorized.node.payout_recipient).toBe(node.payout_recipient);
    expect((await verifiedEvents(created.id)).map((e) => e.type)).toEqual([
      "onboarding.connected",
      "onboarding.authorized",
    ]);
  });

  it("reads the node record's payout_recipient as the network's client does: trimmed, in any case", async () => {
    const operator = accountAddress();
    const payout = accountAddress();
    // A node whose record spells the payout in upper case with spaces around it; the chain lists the authorization.
    await devnetFault({
      prefix: `/${config.namespace}/incentives/v1/node/${operator}`,
      content_type: "application/json",
      body: JSON.stringify({ node: { operator, payout_recipient: `  ${payout.toUpperCase()} ` } }),
    });
    await devnetFault({
      prefix: `/${config.namespace}/incentives/v1/operator_authorizations/${payout}`,
      content_type: "application/json",
      body: JSON.stringify({
        authorizations: [{ payout_recipient: payout, operator: ` ${operator.toUpperCase()}`, label: "" }],
        pagination: { next_key: null, total: "1" },
      }),
    });
    const created = await createOnboarding({ operator });
    await page.payout(created.id, { source: "in_app", address: payout });
    await settle(created.id);
    expect(await readOnboarding(created.id)).toMatchObject({
      status: "applied",
      payout,
      node: { payout_recipient: payout },
    });
  });

  it("needs no authorization when the payout is the operator itself", async () => {
    const node = await devnetNode("paying-itself");
    const created = await createOnboarding({ operator: node.operator });
    const paired = await page.payout(created.id, { source: "in_app", address: node.operator });
    expect(await paired.json()).toMatchObject({
      status: "authorized",
      payout_source: "in_app",
      authorization: { required: false },
    });
    await settle(created.id);
    expect((await readOnboarding(created.id)).status).toBe("applied");
    expect((await verifiedEvents(created.id)).map((e) => e.type)).toEqual([
      "onboarding.connected",
      "onboarding.authorized",
      "onboarding.applied",
    ]);
  });
});

/**
 * The host handoff end to end on one machine, as docs/HOSTS.md walks through it: `wrangler dev`
 * with host settings, the host example playing the operator on the devnet, an onboarding created
 * through the host API, a payout paired and authorized on the devnet; the service's signed events
 * reach the host example, whose MsgUpdateNode moves the node record, and the onboarding ends
 * `applied` with every event delivered once.
 */
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { freshAddress, serverContext } from "./helpers/chain.ts";
import { startHostExample, type HostExample } from "./helpers/host-example.ts";
import { untilServing } from "./helpers/wrangler-dev.ts";

interface EventsLog {
  events: { type: string; delivered_at: string | null }[];
}

const devnet = inject("devnetUrl");
// The server with host settings pointing at the host example: started by the global setup.
const { key, secret, webhookPort } = inject("hostLoop");
const server = { url: inject("hostLoop").url };
let host: HostExample;

beforeAll(async () => {
  host = await startHostExample(secret, "--port", String(webhookPort), "--devnet", devnet);
  await untilServing(server.url);
});
afterAll(async () => {
  await host?.stop();
});

it("goes from create to applied with the host example applying the payout on the devnet", async () => {
  const ctx = await serverContext();
  const operator = freshAddress(ctx);
  const payout = freshAddress(ctx);
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${server.url}/api/onboardings${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...init.headers },
    });

  const created = await api("", {
    method: "POST",
    headers: { "idempotency-key": "loop-1" },
    body: JSON.stringify({ operator, reference: "loop-1" }),
  });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: string };

  // The customer's page pairs the wallet's address; the wallet signs the authorization.
  const paired = await fetch(`${server.url}/api/onboarding-pages/${id}/payout`, {
    method: "POST",
    headers: { origin: server.url, "content-type": "application/json" },
    body: JSON.stringify({ source: "in_app", address: payout }),
  });
  expect(paired.status).toBe(200);
  const authorize = {
    typeUrl: `/${ctx.namespace}.incentives.v1.MsgAuthorizeOperator`,
    value: { payoutRecipient: payout, operator, label: "" },
  };
  const signed = await fetch(`${devnet}/__devnet/txs`, {
    method: "POST",
    body: JSON.stringify({ signer: payout, messages: [authorize] }),
  });
  expect(((await signed.json()) as { tx_response: { code: number } }).tx_response.code).toBe(0);

  await host.waitFor(new RegExp(`onboarding\\.applied  ${id} .*node pays ${payout}`));
  const log = host.output();
  expect(log.indexOf(`onboarding.connected  ${id}`)).toBeLessThan(log.indexOf(`onboarding.authorized  ${id}`));
  expect(log).toMatch(/devnet: the operator broadcast MsgUpdateNode/);
  const node = (await (await fetch(`${devnet}/${ctx.namespace}/incentives/v1/node/${operator}`)).json()) as {
    node: { payout_recipient: string };
  };
  expect(node.node.payout_recipient).toBe(payout);

  const onboarding = (await (await api(`/${id}`)).json()) as { status: string; node: { payout_recipient: string } };
  expect(onboarding).toMatchObject({ status: "applied", node: { payout_recipient: payout } });
  const eventsLog = async () => ((await (await api(`/${id}/events`)).json()) as EventsLog).events;
  expect((await eventsLog()).map((e) => e.type)).toEqual([
    "onboarding.connected",
    "onboarding.authorized",
    "onboarding.applied",
  ]);
  // The applied event's delivery is recorded just after the host example has printed it.
  await expect.poll(async () => (await eventsLog()).every((e) => e.delivered_at !== null)).toBe(true);
});

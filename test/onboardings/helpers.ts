/**
 * Builders for the onboarding tests: the host API with the suite's keys, the customer page's
 * calls, the devnet as the chain (authorizations broadcast as the payout key would) and the
 * webhook receiver's record of what it was sent.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { vi } from "vitest";
import { readConfig } from "../../src/config";
import { HOST_KEYS } from "../host-settings";
import { ORIGIN, accountAddress, api, confirm, createSession, postJson, proofFor } from "../helpers/sessions";

export const config = readConfig(env);
const bindings = env as unknown as { DEVNET_URL: string; WEBHOOK_RECEIVER_URL: string };
export const DEVNET = bindings.DEVNET_URL;
const RECEIVER = new URL(bindings.WEBHOOK_RECEIVER_URL).origin;

export const bearer = (key: string = HOST_KEYS[0]) => ({ authorization: `Bearer ${key}` });

/** A host API request with the current key. */
export function host(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (!headers.has("authorization")) headers.set("authorization", bearer().authorization);
  return api(`/api/onboardings${path}`, { ...init, headers });
}

export function hostPost(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return host(path, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

export type Onboarding = Record<string, any> & { id: string; status: string };

/** Creates an onboarding for `operator` and returns it. */
export async function createOnboarding(body: Record<string, unknown>): Promise<Onboarding> {
  const response = await hostPost("", body);
  if (response.status !== 201) throw new Error(`create failed: ${response.status} ${await response.text()}`);
  return response.json();
}

export async function readOnboarding(id: string): Promise<Onboarding> {
  return (await host(`/${id}`)).json();
}

/** The customer's page: its view, and what it reports. */
export const page = {
  view: (id: string) => api(`/api/onboarding-pages/${id}`),
  payout: (id: string, body: unknown) =>
    postJson(`/api/onboarding-pages/${id}/payout`, body, { headers: { origin: ORIGIN } }),
  authorization: (id: string, txhash: string) =>
    postJson(`/api/onboarding-pages/${id}/authorization`, { txhash }, { headers: { origin: ORIGIN } }),
};

/** Pairs `payout` by the relayed route: a pairing session the wallet confirmed with that address. */
export async function pairByRelay(id: string, payout: string): Promise<Response> {
  const sessionId = await createSession();
  const confirmed = await confirm(sessionId, proofFor(sessionId, { address: payout }));
  if (confirmed.status !== 200) throw new Error(`confirm failed: ${confirmed.status}`);
  return page.payout(id, { session_id: sessionId });
}

export function onboardingStub(id: string) {
  return env.ONBOARDINGS.get(env.ONBOARDINGS.idFromName(id));
}

/**
 * Moves the clock (Date in this isolate, and so in every Durable Object the tests run) on to `at`;
 * it keeps running from there. Test files that move it go back to the real clock after each test.
 */
export function clockTo(at: number): void {
  vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
  vi.setSystemTime(at);
}

/** Does what is due now (a read of the chain, a delivery), or waits for the wake-up the platform already started. */
export async function settle(id: string): Promise<void> {
  await runInDurableObject(onboardingStub(id), (onboarding) => onboarding.alarm());
}

/** The lane of the suite's webhook URL. */
export function laneStub() {
  return env.WEBHOOK_LANES.get(env.WEBHOOK_LANES.idFromName(config.hostWebhook!.url));
}

/** When a Durable Object's alarm is set for (null: none). */
export function alarmOf(
  stub: DurableObjectStub<never> | ReturnType<typeof onboardingStub> | ReturnType<typeof laneStub>,
): Promise<number | null> {
  return runInDurableObject(stub as ReturnType<typeof laneStub>, (_instance, state) => state.storage.getAlarm());
}

/**
 * Settles, then moves the clock on to whichever comes first, the onboarding's next alarm (a check,
 * the expiry) or its webhook lane's (a probe of a failing endpoint), runs the lane's and settles
 * the onboarding again (a release sets its alarm to now).
 */
export async function wake(id: string): Promise<void> {
  await settle(id);
  const times = (await Promise.all([alarmOf(onboardingStub(id)), alarmOf(laneStub())])).filter(
    (t): t is number => t !== null,
  );
  const at = times.length === 0 ? null : Math.min(...times);
  if (at !== null && at > Date.now()) clockTo(at);
  await runDurableObjectAlarm(laneStub());
  await runDurableObjectAlarm(onboardingStub(id));
  await settle(id);
}

/** The receiver fails every delivery for these onboardings (an outage, as far as they can tell) until `recover`. */
export async function outage(ids: string[], answer: number | "down" = 503): Promise<void> {
  await Promise.all(ids.map((id) => planAnswers(id, Array(100).fill(answer))));
}

/** The receiver answers these onboardings' deliveries again. */
export async function recover(ids: string[]): Promise<void> {
  await Promise.all(ids.map((id) => planAnswers(id, [])));
}

/**
 * What the network's chain follower tells `id` when a block at `height` names it; then `id` has done what that woke.
 */
export async function hintBlock(id: string, height: number): Promise<void> {
  await onboardingStub(id).chainHint({ height, following: true });
  await settle(id);
}

/** Restarts the onboarding's object as a crash would: memory gone, only what storage holds survives. */
export async function restart(id: string): Promise<void> {
  await runInDurableObject(onboardingStub(id), (_instance, state) => state.abort("restart")).catch(() => undefined);
}

/**
 * Runs the onboarding's alarms one after the other (each what was due first: a check, a retry) until `done`, at most
 * `max` of them.
 */
export async function wakeUntil(id: string, done: () => Promise<boolean>, max = 12): Promise<void> {
  for (let n = 0; n < max && !(await done()); n++) await wake(id);
}

/** The devnet's node records (operator and whom each pays). */
async function devnetNodes(): Promise<{ operator: string; payout_recipient: string }[]> {
  const response = await fetch(`${DEVNET}/${config.namespace}/incentives/v1/nodes`);
  return ((await response.json()) as { nodes: { operator: string; payout_recipient: string }[] }).nodes;
}

/**
 * A node of the devnet chosen for what a test needs of it, not for its place in the seed list: one
 * that already pays a payout address of its own (which the chain accepted only because that
 * address authorized the operator), or one that pays its own operator.
 */
export async function devnetNode(
  kind: "paying-authorized-payout" | "paying-itself",
): Promise<{ operator: string; payout_recipient: string }> {
  const node = (await devnetNodes()).find((n) => (n.payout_recipient === n.operator) === (kind === "paying-itself"));
  if (!node) throw new Error(`the devnet has no node ${kind}`);
  return node;
}

/**
 * Broadcasts on the devnet as `signer` would from its wallet and waits for the block that holds it; returns the
 * tx_response.
 */
export async function broadcast(signer: string, messages: { typeUrl: string; value: Record<string, unknown> }[]) {
  const response = await fetch(`${DEVNET}/__devnet/txs?wait=block`, {
    method: "POST",
    body: JSON.stringify({ signer, messages }),
  });
  return ((await response.json()) as { tx_response: { txhash: string; code: number; height: string } }).tx_response;
}

/** The payout key authorizes the operator on the devnet. */
export function authorizeOnChain(payout: string, operator: string, signer = payout) {
  return broadcast(signer, [
    {
      typeUrl: `/${config.namespace}.incentives.v1.MsgAuthorizeOperator`,
      value: { payoutRecipient: payout, operator, label: "test" },
    },
  ]);
}

export interface ReceivedDelivery {
  headers: Record<string, string>;
  body: string;
  answer: number | string;
}

/** What the webhook receiver was sent for one onboarding, in order. */
export async function deliveriesOf(id: string): Promise<ReceivedDelivery[]> {
  return (await fetch(`${RECEIVER}/__receiver/deliveries?onboarding=${id}`)).json();
}

/** Plans the receiver's next answers for one onboarding's deliveries. */
export async function planAnswers(id: string, answers: (number | "hang" | "redirect" | "down")[]): Promise<void> {
  await fetch(`${RECEIVER}/__receiver/plan`, { method: "POST", body: JSON.stringify({ onboarding: id, answers }) });
}

export { accountAddress };

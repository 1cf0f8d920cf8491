/**
 * The hosting provider's side in the e2e run: the host API with the global setup's bearer key,
 * the webhook events the loopback receiver got (verified with the `standardwebhooks` package, as
 * a host would), and the operator's own MsgUpdateNode on the devnet.
 */
import { Webhook } from "standardwebhooks";
import { inject } from "vitest";
import { buildUpdateNode, type ChainContext, type OnboardingView } from "../../../src/protocol/index.ts";

/** The host's view of an onboarding, as the host API answers it and every event carries it. */
export type HostOnboarding = OnboardingView;

async function hostCall(path: string, init: RequestInit = {}): Promise<{ status: number; body: HostOnboarding }> {
  const response = await fetch(`${inject("baseUrl")}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${inject("hostApiKey")}`, "content-type": "application/json", ...init.headers },
  });
  return { status: response.status, body: (await response.json()) as HostOnboarding };
}

/** Creates an onboarding as a host does; fails the test unless the server answers 201. */
export async function createOnboarding(input: {
  operator: string;
  label?: string;
  reference?: string;
  return_url?: string;
}): Promise<HostOnboarding> {
  const { status, body } = await hostCall("/api/onboardings", { method: "POST", body: JSON.stringify(input) });
  if (status !== 201) throw new Error(`creating an onboarding answered ${status}: ${JSON.stringify(body)}`);
  return body;
}

/** The host's current view of onboarding `id`. */
export async function hostOnboarding(id: string): Promise<HostOnboarding> {
  return (await hostCall(`/api/onboardings/${id}`)).body;
}

/** Cancels onboarding `id` as the host. */
export async function cancelOnboarding(id: string): Promise<HostOnboarding> {
  const { status, body } = await hostCall(`/api/onboardings/${id}/cancel`, { method: "POST" });
  if (status !== 200) throw new Error(`cancelling answered ${status}: ${JSON.stringify(body)}`);
  return body;
}

/** `GET /api/onboardings?…` or `GET /api/events?…` (the list and the feed the index answers), as a host reads them. */
export async function hostPage<T = HostOnboarding>(path: string): Promise<{ data: T[]; has_more: boolean }> {
  const response = await fetch(`${inject("baseUrl")}${path}`, {
    headers: { authorization: `Bearer ${inject("hostApiKey")}` },
  });
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as { data: T[]; has_more: boolean };
}

/** A webhook event whose signature the `standardwebhooks` package verified. */
export interface VerifiedEvent {
  webhookId: string;
  type: string;
  data: HostOnboarding;
}

/** Every event the receiver got for onboarding `id`, in arrival order, each verified (a bad signature throws). */
export async function verifiedEvents(id: string): Promise<VerifiedEvent[]> {
  const received = (await (await fetch(`${inject("webhooksReceivedUrl")}?onboarding=${id}`)).json()) as {
    headers: Record<string, string>;
    body: string;
  }[];
  const webhook = new Webhook(inject("webhookSecret"));
  return received.map((event) => {
    const payload = webhook.verify(event.body, event.headers) as { type: string; data: HostOnboarding };
    return { webhookId: event.headers["webhook-id"]!, type: payload.type, data: payload.data };
  });
}

/** The devnet's hosted nodes' operators (only a registered node has a record to change). */
export async function nodeOperators(ctx: ChainContext): Promise<string[]> {
  const body = (await (await fetch(`${inject("devnetUrl")}/${ctx.namespace}/incentives/v1/nodes`)).json()) as {
    nodes: { operator: string }[];
  };
  return body.nodes.map((node) => node.operator);
}

/** Plays the operator on the node machine: broadcasts MsgUpdateNode naming `payout`; returns the block it went in. */
export async function applyOnNode(ctx: ChainContext, operator: string, payout: string): Promise<number> {
  const response = await fetch(`${inject("devnetUrl")}/__devnet/txs`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ signer: operator, messages: [buildUpdateNode(ctx, { operator, payoutRecipient: payout })] }),
  });
  const { tx_response } = (await response.json()) as { tx_response: { code: number; raw_log: string; height: string } };
  if (tx_response.code !== 0) throw new Error(`MsgUpdateNode failed: ${tx_response.raw_log}`);
  return Number(tx_response.height);
}

/**
 * The three parties of an onboarding, played against a local service and devnet for benchmarks:
 * the host (creates it with its API key), the customer's page (pairs a payout, same-origin) and
 * the chain's signers (the payout's MsgAuthorizeOperator, the operator's MsgUpdateNode).
 */
import { toBech32 } from "@cosmjs/encoding";
import { randomBytes } from "node:crypto";
import { typeUrls, type ChainContext } from "../../src/protocol/index.ts";

/** What the bench reads of a created onboarding. */
interface CreatedOnboarding {
  id: string;
  created_at: string;
  expires_at: string;
}

export interface OnboardingParties {
  /** A new account address of the network, unknown to the devnet. */
  freshAddress(): string;
  /** Registers a node paying `operator` itself, as a new node's first start would. */
  registerNode(operator: string): Promise<void>;
  /** `POST /api/onboardings` with `reference` as its Idempotency-Key. */
  create(operator: string, reference: string): Promise<CreatedOnboarding>;
  /** The customer's page reports the payout its wallet app paired (`in_app`). */
  pair(id: string, payout: string): Promise<void>;
  /** The payout signs MsgAuthorizeOperator; resolves when the devnet answered (the block holds it then). */
  authorize(payout: string, operator: string): Promise<void>;
  /** The operator signs MsgUpdateNode pointing its node at `payout`. */
  applyPayout(operator: string, payout: string): Promise<void>;
}

async function expectStatus(response: Response, status: number, what: string): Promise<Response> {
  if (response.status !== status)
    throw new Error(`${what}: expected ${status}, got ${response.status}: ${await response.text()}`);
  return response;
}

export function onboardingParties(options: {
  service: string;
  devnet: string;
  apiKey: string;
  ctx: ChainContext;
}): OnboardingParties {
  const { service, devnet, apiKey, ctx } = options;
  const types = typeUrls(ctx);
  const json = { "content-type": "application/json" };

  async function broadcast(
    signer: string,
    typeUrl: string,
    value: Record<string, string>,
    what: string,
  ): Promise<void> {
    const response = await expectStatus(
      await fetch(`${devnet}/__devnet/txs`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({ signer, messages: [{ typeUrl, value }] }),
      }),
      200,
      what,
    );
    const { tx_response: tx } = (await response.json()) as { tx_response: { code: number; raw_log: string } };
    if (tx.code !== 0) throw new Error(`${what} failed on the devnet: ${tx.raw_log}`);
  }

  return {
    freshAddress: () => toBech32(ctx.bech32Prefix, randomBytes(20)),
    async registerNode(operator) {
      const response = await fetch(`${devnet}/__devnet/nodes`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({ operator, label: "bench" }),
      });
      await (await expectStatus(response, 201, "register a node")).arrayBuffer();
    },
    async create(operator, reference) {
      const response = await fetch(`${service}/api/onboardings`, {
        method: "POST",
        headers: { ...json, authorization: `Bearer ${apiKey}`, "idempotency-key": reference },
        body: JSON.stringify({ operator, reference }),
      });
      return (await (await expectStatus(response, 201, "create an onboarding")).json()) as CreatedOnboarding;
    },
    async pair(id, payout) {
      const response = await fetch(`${service}/api/onboarding-pages/${id}/payout`, {
        method: "POST",
        headers: { ...json, origin: service },
        body: JSON.stringify({ source: "in_app", address: payout }),
      });
      await (await expectStatus(response, 200, "pair a payout")).arrayBuffer();
    },
    authorize: (payout, operator) =>
      broadcast(
        payout,
        types.authorizeOperator,
        { payoutRecipient: payout, operator, label: "" },
        "MsgAuthorizeOperator",
      ),
    applyPayout: (operator, payout) =>
      broadcast(operator, types.updateNode, { operator, payoutRecipient: payout }, "MsgUpdateNode"),
  };
}

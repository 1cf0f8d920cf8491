/** The e2e server's chain context and fresh addresses for it. */
import { toBech32 } from "@cosmjs/encoding";
import { randomBytes } from "node:crypto";
import { inject } from "vitest";
import { chainContextFromSettings } from "../../../src/protocol/chain-settings.ts";
import type { ChainContext } from "../../../src/protocol/index.ts";

/** The chain context the server under test publishes at `/api/config`. */
export async function serverContext(): Promise<ChainContext> {
  const response = await fetch(`${inject("baseUrl")}/api/config`);
  return chainContextFromSettings(await response.json());
}

/** A new account address of the network, unknown to the devnet. */
export function freshAddress(ctx: ChainContext): string {
  return toBech32(ctx.bech32Prefix, randomBytes(20));
}

/**
 * Records an authorization straight in the devnet, as another device would have signed it; answers once a block holds
 * it.
 */
export async function recordAuthorization(payout: string, operator: string): Promise<number> {
  const response = await fetch(`${inject("devnetUrl")}/__devnet/authorizations?wait=block`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ payout_recipient: payout, operator, label: "elsewhere" }),
  });
  return response.status;
}

/** The devnet's recorded authorizations. */
export async function devnetAuthorizations(): Promise<{ payout_recipient: string; operator: string; label: string }[]> {
  const body = (await (await fetch(`${inject("devnetUrl")}/__devnet/authorizations`)).json()) as {
    authorizations: never[];
  };
  return body.authorizations;
}

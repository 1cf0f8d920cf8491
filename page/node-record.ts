/**
 * The node record through the gateway (`/api/<namespace>/incentives/v1/node/<operator>`): whose
 * address the node pays now, and the block height the answer stands at (the gateway's
 * `x-cosmos-block-height`). DOM-free apart from `fetch`.
 */
import type { ChainContext } from "../src/protocol/index.ts";
import { GatewayError } from "./gateway.ts";

/** What the network says about the operator's node; `payoutRecipient` is null while it has no record. */
export interface NodePayout {
  payoutRecipient: string | null;
  height: number | null;
}

/** Reads the operator's node record; a gateway failure is a GatewayError. */
export async function readNodePayout(ctx: ChainContext, operator: string, signal?: AbortSignal): Promise<NodePayout> {
  let response: Response;
  try {
    response = await fetch(`/api/${ctx.namespace}/incentives/v1/node/${encodeURIComponent(operator)}`, {
      headers: { accept: "application/json" },
      cache: "no-store",
      signal,
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new GatewayError("The network gateway could not be reached.");
  }
  const height = Number(response.headers.get("x-cosmos-block-height"));
  const at = Number.isSafeInteger(height) && height > 0 ? height : null;
  // A node that has not registered yet is the node's own 404: not yet, not a failure.
  if (response.status === 404) return { payoutRecipient: null, height: at };
  if (!response.ok) throw new GatewayError(`The network gateway answered with an error (HTTP ${response.status}).`);
  const body = (await response.json().catch(() => null)) as { node?: { payout_recipient?: unknown } } | null;
  const payout = body?.node?.payout_recipient;
  return { payoutRecipient: typeof payout === "string" && payout !== "" ? payout : null, height: at };
}

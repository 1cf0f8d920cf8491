/**
 * The page's reads of the gateway (`/api/...` on this origin): whether the payout recipient lists
 * the operator yet, and the operator's balance for the optional sweep.
 */
import { listsOperator, operatorAuthorizationsPath } from "../src/protocol/index.ts";
import type { ChainContext } from "../src/protocol/index.ts";

/** The gateway did not answer usefully (down, or an error status). */
export class GatewayError extends Error {
  override name = "GatewayError";
}

async function getJson(path: string, signal?: AbortSignal): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(`/api${path}`, { headers: { accept: "application/json" }, cache: "no-store", signal });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new GatewayError("The network gateway could not be reached.");
  }
  if (!response.ok) throw new GatewayError(`The network gateway answered with an error (HTTP ${response.status}).`);
  return response.json();
}

/** True when `operator_authorizations/<payout>` lists `operator`. */
export async function isOperatorAuthorized(ctx: ChainContext, payoutRecipient: string, operator: string, signal?: AbortSignal): Promise<boolean> {
  return listsOperator(await getJson(operatorAuthorizationsPath(ctx, payoutRecipient), signal), operator);
}

/**
 * Polls until the payout recipient lists the operator (resolves), the deadline passes (resolves
 * false), the gateway fails (rejects with GatewayError) or `signal` aborts.
 */
export async function waitForOperatorAuthorization(
  ctx: ChainContext,
  input: { payoutRecipient: string; operator: string; deadline: Date; intervalMs?: number; signal: AbortSignal },
): Promise<boolean> {
  for (;;) {
    if (await isOperatorAuthorized(ctx, input.payoutRecipient, input.operator, input.signal)) return true;
    if (Date.now() >= input.deadline.getTime()) return false;
    await sleep(input.intervalMs ?? 2000, input.signal);
  }
}

/** The operator's balance of the native denom (smallest unit), or null when the gateway has none. */
export async function nativeBalance(ctx: ChainContext, address: string): Promise<string | null> {
  const body = (await getJson(`/cosmos/bank/v1beta1/balances/${encodeURIComponent(address)}`)) as { balances?: { denom?: string; amount?: string }[] };
  const coin = body.balances?.find((c) => c.denom === ctx.nativeDenom);
  return coin?.amount ?? null;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });
}

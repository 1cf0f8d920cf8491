/**
 * The page's reads of the gateway (`/api/...` on this origin): whether the payout recipient lists
 * the operator yet, what became of a transaction the wallet app broadcast, and the operator's
 * balance for the optional sweep.
 */
import { listsOperator, operatorAuthorizationsPath, readTxAnswer, txLookupPath } from "../src/protocol/index.ts";
import type { ChainContext, TxOutcome } from "../src/protocol/index.ts";

/** The gateway did not answer usefully (down, or an error status). */
export class GatewayError extends Error {
  override name = "GatewayError";
}

async function get(path: string, signal?: AbortSignal): Promise<{ status: number; body: unknown }> {
  let response: Response;
  try {
    response = await fetch(`/api${path}`, { headers: { accept: "application/json" }, cache: "no-store", signal });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new GatewayError("The network gateway could not be reached.");
  }
  return { status: response.status, body: await response.json().catch(() => null) };
}

function unusable(status: number): GatewayError {
  return new GatewayError(`The network gateway answered with an error (HTTP ${status}).`);
}

async function getJson(path: string, signal?: AbortSignal): Promise<unknown> {
  const { status, body } = await get(path, signal);
  if (status < 200 || status >= 300) throw unusable(status);
  return body;
}

/** True when `operator_authorizations/<payout>` lists `operator`. */
export async function isOperatorAuthorized(
  ctx: ChainContext,
  payoutRecipient: string,
  operator: string,
  signal?: AbortSignal,
): Promise<boolean> {
  return listsOperator(await getJson(operatorAuthorizationsPath(ctx, payoutRecipient), signal), operator);
}

/** What the network says about transaction `txhash` now; a gateway error is a GatewayError. */
async function lookUpTransaction(
  txhash: string,
  signal?: AbortSignal,
): Promise<Exclude<TxOutcome, { kind: "unreadable" }>> {
  const { status, body } = await get(txLookupPath(txhash), signal);
  const outcome = readTxAnswer(status, body);
  if (outcome.kind === "unreadable") throw unusable(outcome.status);
  return outcome;
}

/** How the authorization showed itself: listed, a transaction's final outcome, or not before the deadline. */
export type AuthorizationEvidence =
  | { kind: "listed" }
  | { kind: "expired" }
  | Exclude<TxOutcome, { kind: "pending" } | { kind: "unreadable" }>;

/**
 * Polls until the authorization shows itself or the deadline passes. While no transaction hash is
 * known (a QR scanned by another phone) it asks the authorization list; once `txhash()` returns
 * one (the wallet app signed here) it follows that transaction, whose failure is final. `wake`
 * fires when a hash arrives, so the next look does not wait out the interval. Rejects with a
 * GatewayError when the gateway fails, or when `signal` aborts.
 */
export async function waitForAuthorization(
  ctx: ChainContext,
  input: {
    payoutRecipient: string;
    operator: string;
    deadline: Date;
    txhash(): string | null;
    wake: EventTarget;
    signal: AbortSignal;
    intervalMs?: number;
  },
): Promise<AuthorizationEvidence> {
  for (;;) {
    const txhash = input.txhash();
    if (txhash !== null) {
      const outcome = await lookUpTransaction(txhash, input.signal);
      if (outcome.kind !== "pending") return outcome;
    } else if (await isOperatorAuthorized(ctx, input.payoutRecipient, input.operator, input.signal)) {
      return { kind: "listed" };
    }
    if (Date.now() >= input.deadline.getTime()) return { kind: "expired" };
    await pause(input.intervalMs ?? 2000, input.signal, input.wake);
  }
}

/** The operator's balance of the native denom (smallest unit), or null when the gateway has none. */
export async function nativeBalance(ctx: ChainContext, address: string): Promise<string | null> {
  const body = (await getJson(`/cosmos/bank/v1beta1/balances/${encodeURIComponent(address)}`)) as {
    balances?: { denom?: string; amount?: string }[];
  };
  const coin = body.balances?.find((c) => c.denom === ctx.nativeDenom);
  return coin?.amount ?? null;
}

/** Waits `ms`, or less when `wake` fires; rejects when `signal` aborts. */
function pause(ms: number, signal: AbortSignal, wake: EventTarget): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const cleanUp = () => {
      clearTimeout(timer);
      wake.removeEventListener("wake", onWake);
      signal.removeEventListener("abort", onAbort);
    };
    const onWake = () => {
      cleanUp();
      resolve();
    };
    const onAbort = () => {
      cleanUp();
      reject(signal.reason);
    };
    const timer = setTimeout(onWake, ms);
    wake.addEventListener("wake", onWake);
    signal.addEventListener("abort", onAbort);
  });
}

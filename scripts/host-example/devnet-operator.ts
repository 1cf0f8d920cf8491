/**
 * Plays the host's operator key against the local devnet (docs/DEVNET.md): what `update-node`
 * would do on a real node, as a MsgUpdateNode {operator, payoutRecipient} signed by the operator
 * and broadcast through `POST /__devnet/txs`. A development stand-in only: a real host runs the
 * event's `commands.update_node` on the node's machine.
 */
import { typeUrls } from "../../src/protocol/index.ts";
import type { Onboarding } from "./receiver.ts";

interface TxResponse {
  txhash: string;
  code: number;
  codespace: string;
  raw_log: string;
}

async function call(url: string, init?: RequestInit): Promise<{ status: number; body: Record<string, unknown> }> {
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch {
    throw new Error(`cannot reach the devnet at ${new URL(url).origin}; is it running?`);
  }
  return { status: response.status, body: (await response.json().catch(() => ({}))) as Record<string, unknown> };
}

const post = (url: string, body: unknown) =>
  call(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

/** The devnet's REST namespace (`/<namespace>/incentives/v1/…`), asked once. */
export async function devnetNamespace(devnet: string): Promise<string> {
  const { status, body } = await call(`${devnet}/__devnet/status`);
  if (status !== 200 || typeof body.namespace !== "string")
    throw new Error(`${devnet} is not a devnet (GET /__devnet/status answered ${status})`);
  return body.namespace;
}

/**
 * Broadcasts the onboarding's MsgUpdateNode as its operator and returns the transaction hash;
 * throws with the chain's "codespace: raw_log" when the transaction fails. An operator the devnet
 * has no node for gets one registered first, as a new node's first start would.
 */
export async function applyOnDevnet(
  devnet: string,
  namespace: string,
  onboarding: Onboarding,
  log: (line: string) => void,
): Promise<string> {
  const { operator, payout, label } = onboarding;
  if (!payout) throw new Error(`${onboarding.id} carries no payout`);
  const node = await call(`${devnet}/${namespace}/incentives/v1/node/${operator}`);
  if (node.status === 404) {
    const registered = await post(`${devnet}/__devnet/nodes?wait=block`, { operator, label });
    if (registered.status !== 201)
      throw new Error(`the devnet refused to register a node for ${operator}: ${JSON.stringify(registered.body)}`);
    log(`devnet: no node for ${operator} yet; registered one (as the node's first start would)`);
  }
  const message = { typeUrl: typeUrls({ namespace }).updateNode, value: { operator, payoutRecipient: payout } };
  // Answered once a block holds it, as `hoped tx … -y` followed by a wait for the block would be.
  const sent = await post(`${devnet}/__devnet/txs?wait=block`, {
    signer: operator,
    memo: onboarding.id,
    messages: [message],
  });
  const tx = sent.body.tx_response as TxResponse | undefined;
  if (sent.status !== 200 || !tx)
    throw new Error(`the devnet refused the broadcast (${sent.status}): ${JSON.stringify(sent.body)}`);
  if (tx.code !== 0) throw new Error(`MsgUpdateNode failed, tx ${tx.txhash}: ${tx.codespace}: ${tx.raw_log}`);
  return tx.txhash;
}

/**
 * The devnet's node records: registering a node through the control route, and MsgUpdateNode
 * through `POST /__devnet/txs` (signed by the operator; the payout recipient moves only to the
 * operator itself or to an address that authorized it; empty fields leave the record unchanged).
 * These tests use a devnet of their own, so no other test sees its node list move.
 */
import { beforeAll, describe, expect, inject, it } from "vitest";
import { accountAddress } from "../helpers/sessions";
import { json } from "./helpers";

declare module "vitest" {
  export interface ProvidedContext {
    nodesDevnetUrl: string;
  }
}

interface NodeRecord {
  operator: string;
  node_id: string;
  external_address: string;
  label: string;
  payout_recipient: string;
  status: string;
  registered_height: string;
}
interface TxResponse {
  txhash: string;
  code: number;
  codespace: string;
  raw_log: string;
  height: string;
}

const DEVNET = inject("nodesDevnetUrl");
let words: { namespace: string; bech32_prefix: string };
beforeAll(async () => {
  words = await json(await fetch(`${DEVNET}/__devnet/status`));
});

const fresh = () => accountAddress(words.bech32_prefix);
const post = (path: string, body: unknown) => fetch(`${DEVNET}${path}`, { method: "POST", body: JSON.stringify(body) });
const register = (operator: string, label?: string) => post("/__devnet/nodes?wait=block", { operator, label });

async function nodeOf(operator: string, height?: number): Promise<NodeRecord> {
  const init = height === undefined ? undefined : { headers: { "x-cosmos-block-height": String(height) } };
  const response = await fetch(`${DEVNET}/${words.namespace}/incentives/v1/node/${operator}`, init);
  expect(response.status).toBe(200);
  return (await json<{ node: NodeRecord }>(response)).node;
}

async function broadcast(signer: string, messages: unknown[]): Promise<TxResponse> {
  const response = await post("/__devnet/txs?wait=block", { signer, messages });
  expect(response.status).toBe(200);
  return (await json<{ tx_response: TxResponse }>(response)).tx_response;
}
const updateNode = (value: { operator: string; payoutRecipient?: string; label?: string }) => ({
  typeUrl: `/${words.namespace}.incentives.v1.MsgUpdateNode`,
  value,
});
const authorize = (payoutRecipient: string, operator: string) => ({
  typeUrl: `/${words.namespace}.incentives.v1.MsgAuthorizeOperator`,
  value: { payoutRecipient, operator, label: "" },
});

/** A registered node and a payout address that authorized its operator. */
async function authorizedPair(): Promise<{ operator: string; payout: string }> {
  const [operator, payout] = [fresh(), fresh()];
  expect((await register(operator, "rack-h-1")).status).toBe(201);
  expect((await broadcast(payout, [authorize(payout, operator)])).code).toBe(0);
  return { operator, payout };
}

async function lookUp(hash: string): Promise<{
  status: number;
  body: { tx: { body: { messages: Record<string, unknown>[] } }; tx_response: TxResponse };
}> {
  const response = await fetch(`${DEVNET}/cosmos/tx/v1beta1/txs/${hash}`);
  return { status: response.status, body: await json(response) };
}

describe("devnet node registration (POST /__devnet/nodes)", () => {
  it(
    "registers a node paying its operator, listed from its block on; refuses the same operator (409) and a bad " +
      "address (400)",
    async () => {
      const operator = fresh();
      const response = await register(operator, "rack-h-0");
      expect(response.status).toBe(201);
      const record = await json<NodeRecord>(response);
      expect(record).toMatchObject({
        operator,
        label: "rack-h-0",
        payout_recipient: operator,
        status: "NODE_STATUS_ACTIVE",
      });
      expect(record.node_id).toMatch(/^[0-9a-f]{40}$/);
      expect(await nodeOf(operator)).toEqual(record);
      const earlier = await fetch(`${DEVNET}/${words.namespace}/incentives/v1/node/${operator}`, {
        headers: { "x-cosmos-block-height": String(Number(record.registered_height) - 1) },
      });
      expect(earlier.status).toBe(404);
      const { nodes } = await json<{ nodes: NodeRecord[] }>(
        await fetch(`${DEVNET}/${words.namespace}/incentives/v1/nodes`),
      );
      expect(nodes.filter((n) => n.operator === operator)).toEqual([record]);

      expect((await register(operator)).status).toBe(409);
      expect((await register("nothing")).status).toBe(400);
      expect((await register(fresh(), 7 as unknown as string)).status).toBe(400);
    },
  );
});

describe("devnet MsgUpdateNode (POST /__devnet/txs)", () => {
  it(
    "moves the payout to an address that authorized the operator: code 0, the record changes from its block on, " +
      "the tx found by hash",
    async () => {
      // A seeded node that pays its operator (registered long ago, so the block before the update shows it).
      const { nodes } = await json<{ nodes: NodeRecord[] }>(
        await fetch(`${DEVNET}/${words.namespace}/incentives/v1/nodes`),
      );
      const { operator, label } = nodes.find(
        (n) => n.payout_recipient === n.operator && n.status === "NODE_STATUS_ACTIVE",
      )!;
      const payout = fresh();
      expect((await broadcast(payout, [authorize(payout, operator)])).code).toBe(0);
      const sent = await broadcast(operator, [updateNode({ operator, payoutRecipient: payout })]);
      expect(sent).toMatchObject({ code: 0, codespace: "", raw_log: "" });
      expect(await nodeOf(operator)).toMatchObject({ payout_recipient: payout, label });
      expect((await nodeOf(operator, Number(sent.height) - 1)).payout_recipient).toBe(operator);

      const found = await lookUp(sent.txhash);
      expect(found.status).toBe(200);
      expect(found.body.tx_response).toMatchObject({ txhash: sent.txhash, code: 0, height: sent.height });
      expect(found.body.tx.body.messages).toEqual([
        { "@type": `/${words.namespace}.incentives.v1.MsgUpdateNode`, operator, payout_recipient: payout },
      ]);
    },
  );

  it(
    "refuses a payout recipient that has not authorized the operator: a failed incentives transaction, the record " +
      "unchanged",
    async () => {
      const { operator } = await authorizedPair();
      // An address that authorized another operator is no authorization for this one.
      const stranger = fresh();
      expect((await broadcast(stranger, [authorize(stranger, fresh())])).code).toBe(0);
      for (const payoutRecipient of [fresh(), stranger]) {
        const refused = await broadcast(operator, [updateNode({ operator, payoutRecipient, label: "renamed" })]);
        expect(refused).toMatchObject({ codespace: "incentives", raw_log: expect.stringContaining("not authorized") });
        expect(refused.code).not.toBe(0);
        expect((await lookUp(refused.txhash)).body.tx_response).toMatchObject({
          code: refused.code,
          codespace: "incentives",
        });
      }
      expect(await nodeOf(operator)).toMatchObject({ payout_recipient: operator, label: "rack-h-1" });
    },
  );

  it(
    "leaves the payout unchanged when the payout recipient is empty, the label when the label is empty, and takes " +
      "the operator itself",
    async () => {
      const { operator, payout } = await authorizedPair();
      expect((await broadcast(operator, [updateNode({ operator, payoutRecipient: payout })])).code).toBe(0);
      expect((await broadcast(operator, [updateNode({ operator, payoutRecipient: "", label: "rack-h-2" })])).code).toBe(
        0,
      );
      expect(await nodeOf(operator)).toMatchObject({ payout_recipient: payout, label: "rack-h-2" });
      expect((await broadcast(operator, [updateNode({ operator })])).code).toBe(0);
      expect(await nodeOf(operator)).toMatchObject({ payout_recipient: payout, label: "rack-h-2" });
      expect((await broadcast(operator, [updateNode({ operator, payoutRecipient: operator, label: "" })])).code).toBe(
        0,
      );
      expect(await nodeOf(operator)).toMatchObject({ payout_recipient: operator, label: "rack-h-2" });
    },
  );

  it(
    "refuses at CheckTx an update signed by anyone but the operator: never in a block, the record " + "unchanged",
    async () => {
      const { operator, payout } = await authorizedPair();
      const refused = await broadcast(payout, [updateNode({ operator, payoutRecipient: payout })]);
      expect(refused).toMatchObject({ codespace: "sdk", height: "0", raw_log: expect.stringContaining(operator) });
      expect(refused.code).not.toBe(0);
      expect((await lookUp(refused.txhash)).status).toBe(404);
      expect((await nodeOf(operator)).payout_recipient).toBe(operator);
    },
  );

  it("refuses an update for an operator with no node record", async () => {
    const operator = fresh();
    const refused = await broadcast(operator, [updateNode({ operator, payoutRecipient: operator })]);
    expect(refused).toMatchObject({ codespace: "incentives", raw_log: expect.stringContaining("node not found") });
    expect(refused.code).not.toBe(0);
    expect((await fetch(`${DEVNET}/${words.namespace}/incentives/v1/node/${operator}`)).status).toBe(404);
  });

  it("applies every update of a transaction or none", async () => {
    const { operator, payout } = await authorizedPair();
    const failed = await broadcast(operator, [
      updateNode({ operator, payoutRecipient: payout, label: "first" }),
      updateNode({ operator, payoutRecipient: fresh() }),
    ]);
    expect(failed.raw_log).toContain("message index: 1");
    expect(await nodeOf(operator)).toMatchObject({ payout_recipient: operator, label: "rack-h-1" });
  });

  it("refuses malformed fields with the node's 400 and records nothing", async () => {
    const { operator } = await authorizedPair();
    for (const value of [
      { operator: "nothing" },
      { operator, payoutRecipient: "nothing" },
      { operator, payoutRecipient: 5 },
      { operator, label: 5 },
    ]) {
      const response = await post("/__devnet/txs", {
        signer: operator,
        messages: [{ typeUrl: `/${words.namespace}.incentives.v1.MsgUpdateNode`, value }],
      });
      expect(response.status, JSON.stringify(value)).toBe(400);
    }
    // No transaction: the operator's account holds its registration alone.
    expect(await json(await fetch(`${DEVNET}/cosmos/auth/v1beta1/accounts/${operator}`))).toMatchObject({
      account: { sequence: "1" },
    });
  });
});

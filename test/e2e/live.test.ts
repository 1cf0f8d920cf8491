/**
 * The live face judged from outside by the real client: CosmJS's Comet38Client over
 * WebsocketClient against `wrangler dev` (`<origin>/rpc`), with two devnets as the network's
 * CometBFT nodes. Run in Node, not in the workerd suite: a WebsocketClient needs a real URL.
 */
import { toBech32 } from "@cosmjs/encoding";
import { randomBytes } from "node:crypto";
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  collectHeights,
  cometClient,
  consecutive,
  type LiveStack,
  rawSocket,
  startLiveStack,
  until,
  upstreamSubscriptions,
} from "./helpers/live-stack.ts";

let stack: LiveStack;
beforeAll(async () => {
  stack = await startLiveStack();
});
afterAll(async () => {
  await stack?.stop();
});

async function freshSigner(): Promise<string> {
  const status = (await (await fetch(`${stack.nodes[0].url}/__devnet/status`)).json()) as { bech32_prefix: string };
  return toBech32(status.bech32_prefix, randomBytes(20));
}

/** A transaction of `signer` sent to the first node; its hash (upper-case hex). */
async function sendTx(signer: string): Promise<string> {
  const response = await fetch(`${stack.nodes[0].url}/__devnet/txs`, {
    method: "POST",
    body: JSON.stringify({ signer, memo: "live", messages: [{ typeUrl: "/cosmos.bank.v1beta1.MsgSend", value: {} }] }),
  });
  return ((await response.json()) as { tx_response: { txhash: string } }).tx_response.txhash;
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex").toUpperCase();

describe("refusals", () => {
  it("answers JSON-RPC errors that say why, asks the nodes nothing, and keeps serving", async () => {
    expect((await fetch(`${stack.edge.url}/rpc/websocket`)).status).toBe(426);
    const socket = await rawSocket(stack);
    const refused = async (method: string, params: unknown, code: number, why: RegExp, raw?: string) => {
      const frame = await socket.call(method, params, raw);
      expect(frame.error).toMatchObject({ code });
      expect((frame.error as { data: string }).data).toMatch(why);
    };
    await refused("dial_peers", {}, -32601, /not served here/);
    await refused("broadcast_tx_sync", { tx: "AA==" }, -32601, /not served here/);
    await refused("subscribe", { query: "tx.height > 5" }, -32602, /exactly one tm.event/);
    await refused("subscribe", { query: "tm.event = 'Vote'" }, -32602, /not served here/);
    await refused("subscribe", { query: "tm.event = 'Tx' AND AND" }, -32602, /failed to parse query/);
    await refused("subscribe", { query: `tm.event = 'Tx' AND m.v = '${"x".repeat(500)}'` }, -32602, /512/);
    await refused("", {}, -32600, /at most 65536 bytes/, `{"pad":"${"x".repeat(100 * 1024)}"}`);
    await refused("unsubscribe", { query: "tm.event = 'Tx'" }, -32603, /subscription not found/);
    expect(upstreamSubscriptions(stack)).toBe(0);
    const status = await socket.call("status");
    expect((status.result as { node_info: { network: string } }).node_info.network).toBeTruthy();
    for (let i = 0; i < 5; i++)
      expect((await socket.call("subscribe", { query: `tm.event = 'Tx' AND n.i = ${i}` })).result).toEqual({});
    await refused("subscribe", { query: "tm.event = 'Tx' AND n.i = 5" }, -32603, /max_subscriptions_per_client 5/);
    expect((await socket.call("unsubscribe_all")).result).toEqual({});
    // A socket's subscriptions live in its attachment, which holds 2 KiB: five long queries do not fit.
    const long = (i: number) => `tm.event = 'Tx' AND memo.text = '${String(i).repeat(440)}'`;
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await socket.call("subscribe", { query: long(i) }));
    expect(answers.filter((a) => "error" in a).map((a) => (a.error as { data: string }).data)).toContain(
      "this socket's subscriptions are over 2 KiB together: unsubscribe one",
    );
    expect((await socket.call("status")).result).toBeTruthy();
    socket.ws.close();
  });
});

describe("CosmJS's Comet38Client over WebsocketClient at <origin>/rpc", () => {
  it("receives NewBlock, NewBlockHeader and its Tx, and reads on the same socket", async () => {
    const client = cometClient(stack);
    const blocks = collectHeights(client);
    const headers: number[] = [];
    client.subscribeNewBlockHeader().subscribe({ next: (h) => void headers.push(h.height) });
    const signer = await freshSigner();
    const txs: { hash: string; height: number }[] = [];
    client
      .subscribeTx(`message.sender='${signer}'`)
      .subscribe({ next: (tx) => void txs.push({ hash: hex(tx.hash), height: tx.height }) });
    const status = await client.status();
    expect(status.nodeInfo.network).toBeTruthy();
    await until(() => blocks.heights.length >= 2);
    const hash = await sendTx(signer);
    await until(() => txs.length === 1);
    expect(txs[0]!.hash).toBe(hash);
    const block = await client.block(txs[0]!.height);
    expect(block.block.txs).toHaveLength(1);
    await until(() => headers.length >= 3 && blocks.heights.length >= 4);
    expect(consecutive(blocks.heights)).toBe(true);
    expect(consecutive(headers)).toBe(true);
    expect(blocks.errors).toEqual([]);
    client.disconnect();
  });
});

describe("one upstream subscription per network", () => {
  it("200 sockets on NewBlock, past a node's 100 clients, cost the nodes at most 2 subscriptions", async () => {
    const clients = Array.from({ length: 200 }, () => cometClient(stack));
    const seen = clients.map(collectHeights);
    await until(() => seen.every((s) => s.heights.length >= 4), 120_000);
    expect(upstreamSubscriptions(stack)).toBeLessThanOrEqual(2);
    for (const s of seen) {
      expect(consecutive(s.heights)).toBe(true);
      expect(s.errors).toEqual([]);
    }
    // Every socket saw the same heights from the first they all share.
    const common = Math.max(...seen.map((s) => s.heights[0]!));
    const next = seen.map((s) => s.heights[s.heights.indexOf(common) + 1]);
    expect(new Set(next).size).toBe(1);
    for (const client of clients) client.disconnect();
  });

  it("50 distinct Tx queries: each gets exactly its transaction, tx.hash right, at most 2 subscriptions", async () => {
    const signers = await Promise.all(Array.from({ length: 50 }, freshSigner));
    const clients = Array.from({ length: 10 }, () => cometClient(stack));
    const got = signers.map(() => [] as string[]);
    signers.forEach((signer, i) =>
      clients[i % 10]!.subscribeTx(`message.sender='${signer}'`).subscribe({
        next: (tx) => void got[i]!.push(hex(tx.hash)),
      }),
    );
    await clients[0]!.status();
    const hashes = await Promise.all(signers.map(sendTx));
    await until(() => got.every((g) => g.length >= 1));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(got).toEqual(hashes.map((h) => [h]));
    expect(upstreamSubscriptions(stack)).toBeLessThanOrEqual(2);
    for (const client of clients) client.disconnect();
  });

  it("the node alone, capped as CometBFT's defaults cap it, refuses its 101st subscribing client", async () => {
    const node = stack.nodes[1];
    const subscribe = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "subscribe",
      params: { query: "tm.event='Tx'" },
    });
    const sockets = Array.from(
      { length: 101 },
      () => new WebSocket(`${node.url.replace(/^http/, "ws")}/rpc/websocket`),
    );
    const answers = await Promise.all(
      sockets.map(async (ws) => {
        await new Promise((resolve) => ws.once("open", resolve));
        ws.send(subscribe);
        return new Promise<Record<string, unknown>>((resolve) =>
          ws.once("message", (d) => resolve(JSON.parse(String(d)))),
        );
      }),
    );
    const refused = answers.filter((a) => "error" in a);
    expect(refused.map((a) => (a.error as { data: string }).data)).toEqual(["max_subscription_clients 100 reached"]);
    for (const ws of sockets) ws.terminate();
  });
});

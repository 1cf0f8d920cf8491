/**
 * The RPC face judged by real clients: CosmJS's StargateClient and Comet38Client over HttpClient
 * and HttpBatchClient, pointed at `<origin>/rpc` of the Worker app (their fetches to the origin
 * go to the app, everything else to the network), beside the same clients pointed at the
 * devnet's own CometBFT face. Upstream requests are counted by the devnet per mount tag.
 */
import { StargateClient } from "@cosmjs/stargate";
import { accountParser } from "../../devnet/cosmjs-account";
import { Comet38Client, HttpBatchClient, HttpClient } from "@cosmjs/tendermint-rpc";
import { QueryAllBalancesRequest } from "cosmjs-types/cosmos/bank/v1beta1/query";
import { createExecutionContext, env } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { buildApp } from "../../src/app";
import { readConfig } from "../../src/config";
import { RPC_MAX_BATCH } from "../../src/gateway/rpc/limits";
import { DEVNET, ORIGIN, fault, freshAddress, gateway, tag, upstreamRequests, type Gateway } from "./helpers";

/** The app under test and its origin: a data center of its own, so no other test's cache entries are in it. */
let current: Gateway;
let origin = ORIGIN;

/**
 * A gateway whose RPC upstreams are the devnet's CometBFT face under fresh mount tags; the clients' requests go to it.
 */
function rpcGateway(vars: Record<string, string> = {}, rpcTags = [tag()]): Gateway & { rpcTag: string } {
  origin = `https://${tag()}.edge.test`;
  const urls = rpcTags.map((t) => `${DEVNET}/~${t}/rpc`).join(",");
  current = gateway([tag()], { RPC_UPSTREAM_URLS: urls, ...vars }, { origin });
  return { ...current, rpcTag: rpcTags[0]! };
}

const realFetch = globalThis.fetch;
beforeEach(() => {
  // The clients' requests to the origin reach the app under test; the app's own upstream requests reach the devnet.
  vi.spyOn(globalThis, "fetch").mockImplementation((input, init) => {
    const request = new Request(input, init);
    if (!request.url.startsWith(origin)) return realFetch(request);
    return current.fetch(request.url.slice(origin.length), request);
  });
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

const rpcRequests = (gw: { rpcTag: string }, method = "") => upstreamRequests(`~${gw.rpcTag}/rpc/${method}`);

async function devnetStatus(): Promise<{ namespace: string; native_denom: string }> {
  return (await realFetch(`${DEVNET}/__devnet/status`)).json() as Promise<{ namespace: string; native_denom: string }>;
}

async function seededOperator(): Promise<string> {
  const { namespace } = await devnetStatus();
  const nodes = (await (await realFetch(`${DEVNET}/${namespace}/incentives/v1/nodes`)).json()) as {
    nodes: { operator: string }[];
  };
  return nodes.nodes[0]!.operator;
}

/** A transaction of `signer` in a block, as the devnet records one. */
async function includedTx(signer: string): Promise<string> {
  const response = await realFetch(`${DEVNET}/__devnet/txs?wait=block`, {
    method: "POST",
    body: JSON.stringify({
      signer,
      memo: "rpc test",
      messages: [{ typeUrl: "/cosmos.bank.v1beta1.MsgSend", value: {} }],
    }),
  });
  return ((await response.json()) as { tx_response: { txhash: string } }).tx_response.txhash;
}

async function post(gw: Gateway, body: unknown): Promise<Response> {
  return gw.fetch("/rpc", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

describe("StargateClient through the edge", () => {
  it("answers chain id, height, balances, account, block and transactions as the node does", async () => {
    const gw = rpcGateway();
    const operator = await seededOperator();
    const { native_denom: denom } = await devnetStatus();
    const hash = await includedTx(operator);
    const edge = await StargateClient.connect(`${origin}/rpc`, { accountParser });
    const node = await StargateClient.connect(`${DEVNET}/rpc`, { accountParser });

    expect(await edge.getChainId()).toBe(await node.getChainId());
    const [edgeHeight, nodeHeight] = [await edge.getHeight(), await node.getHeight()];
    expect(Math.abs(edgeHeight - nodeHeight)).toBeLessThanOrEqual(5);
    expect(await edge.getAllBalances(operator)).toEqual(await node.getAllBalances(operator));
    expect((await edge.getAllBalances(operator)).length).toBe(1);
    expect(await edge.getBalance(operator, denom)).toEqual(await node.getBalance(operator, denom));
    const account = await edge.getAccount(operator);
    expect(account).toEqual(await node.getAccount(operator));
    expect(account?.address).toBe(operator);
    expect(await edge.getAccount(freshAddress())).toBeNull();
    const height = edgeHeight - 1;
    expect(await edge.getBlock(height)).toEqual(await node.getBlock(height));
    const tx = await edge.getTx(hash);
    expect(tx?.hash).toBe(hash);
    expect(tx).toEqual(await node.getTx(hash));
    expect(await edge.searchTx(`tx.hash='${hash}'`)).toEqual(await node.searchTx(`tx.hash='${hash}'`));
    expect(await edge.searchTx(`tx.height=${tx!.height}`)).toEqual(await node.searchTx(`tx.height=${tx!.height}`));
    // An immutable answer is asked of a node once: the block at its height.
    await gw.settle();
    expect(await edge.getBlock(height)).toEqual(await node.getBlock(height));
    expect(await rpcRequests(gw, `block?height=${height}`)).toBe(1);
  });

  it("serves a repeated query from the cache: one upstream request, whatever the JSON-RPC id", async () => {
    const gw = rpcGateway();
    const client = await StargateClient.connect(`${origin}/rpc`);
    const address = freshAddress();
    const first = await client.getAllBalances(address);
    await gw.settle();
    expect(await client.getAllBalances(address)).toEqual(first);
    expect(await client.getAllBalances(address)).toEqual(first);
    expect(await rpcRequests(gw, "abci_query")).toBe(1);
    // Two raw calls with other ids: the key holds the method and its params only.
    const call = (id: unknown) => ({
      jsonrpc: "2.0",
      id,
      method: "abci_query",
      params: { path: "/cosmos.bank.v1beta1.Query/AllBalances", data: "0A2D", prove: false },
    });
    const a = await post(gw, call(7));
    expect(a.headers.get("x-cache")).toBe("MISS");
    expect(((await a.json()) as { id: unknown }).id).toBe(7);
    const b = await post(gw, call("other-id"));
    expect(b.headers.get("x-cache")).toBe("HIT");
    expect(((await b.json()) as { id: unknown }).id).toBe("other-id");
    // In a batch (never answered from the memo of bodies), other ids still find the same entry.
    const batch = await post(gw, [call(8), call("z")]);
    expect(batch.headers.get("x-cache")).toBe("HIT");
    expect(((await batch.json()) as { id: unknown }[]).map((a) => a.id)).toEqual([8, "z"]);
    expect(await rpcRequests(gw, "abci_query")).toBe(2);
  });

  it("reads an explicit height through Comet38Client's abciQuery and keeps it a day", async () => {
    const gw = rpcGateway();
    const client = await Comet38Client.create(new HttpClient(`${origin}/rpc`));
    const direct = await Comet38Client.create(new HttpClient(`${DEVNET}/rpc`));
    const height = (await direct.status()).syncInfo.latestBlockHeight - 2;
    const data = QueryAllBalancesRequest.encode({ address: await seededOperator(), resolveDenom: false }).finish();
    const query = { path: "/cosmos.bank.v1beta1.Query/AllBalances", data, height };
    const answer = await client.abciQuery(query);
    expect(answer.height).toBe(height);
    expect(answer.code).toBe(0);
    expect(answer).toEqual(await direct.abciQuery(query));
    await gw.settle();
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 3_600_000);
    expect(await client.abciQuery(query)).toEqual(answer);
    expect(await rpcRequests(gw, "abci_query")).toBe(1);
  });
});

describe("batches", () => {
  it("answers a batch of 10 in the caller's order with the caller's ids, over HttpBatchClient too", async () => {
    const gw = rpcGateway();
    const ids = [9, "b", 3, "a-long-id", 0, -4, "x", 17, "y", 2.5];
    const batch = ids.map((id, i) =>
      i % 3 === 0
        ? { jsonrpc: "2.0", id, method: "status" }
        : i % 3 === 1
          ? { jsonrpc: "2.0", id, method: "health", params: {} }
          : { jsonrpc: "2.0", id, method: "broadcast_tx_sync", params: { tx: "AA==" } },
    );
    const response = await post(gw, batch);
    expect(response.status).toBe(200);
    const answers = (await response.json()) as { id: unknown; result?: unknown; error?: { code: number } }[];
    expect(answers.map((a) => a.id)).toEqual(ids);
    answers.forEach((a, i) => {
      if (i % 3 === 2) expect(a.error?.code).toBe(-32601);
      else expect(a.result).toBeDefined();
    });

    const client = await Comet38Client.create(new HttpBatchClient(`${origin}/rpc`, { batchSizeLimit: 10 }));
    const [status, health, block] = await Promise.all([client.status(), client.health(), client.block()]);
    expect(status.nodeInfo.network).toBeTruthy();
    expect(health).toBeNull();
    expect(block.block.header.height).toBeGreaterThan(0);
  });
});

describe("refusals cost no upstream request", () => {
  const abci = (params: Record<string, unknown>) => ({ jsonrpc: "2.0", id: 1, method: "abci_query", params });
  const cases: [string, unknown, number, number][] = [
    ["malformed JSON", '{"jsonrpc":"2.0",', -32700, 200],
    [
      "a batch over the limit",
      Array.from({ length: RPC_MAX_BATCH + 1 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "health" })),
      -32600,
      200,
    ],
    [
      "a batch of 1,000",
      Array.from({ length: 1000 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "health" })),
      -32600,
      200,
    ],
    [
      "a 1 MiB body",
      `{"jsonrpc":"2.0","id":1,"method":"health","params":{"pad":"${"x".repeat(1 << 20)}"}}`,
      -32600,
      413,
    ],
    ["broadcast_tx_sync", { jsonrpc: "2.0", id: 1, method: "broadcast_tx_sync", params: { tx: "AA==" } }, -32601, 200],
    ["unsafe_flush_mempool", { jsonrpc: "2.0", id: 1, method: "unsafe_flush_mempool" }, -32601, 200],
    ["genesis", { jsonrpc: "2.0", id: 1, method: "genesis" }, -32601, 200],
    ["a method named like an object's own", { jsonrpc: "2.0", id: 1, method: "constructor" }, -32601, 200],
    ["abci_query on the tx service", abci({ path: "/cosmos.tx.v1beta1.Service/GetTxsEvent", data: "" }), -32602, 200],
    ["abci_query on gov", abci({ path: "/cosmos.gov.v1.Query/Proposals" }), -32602, 200],
    ["abci_query on a store path", abci({ path: "/store/bank/key" }), -32602, 200],
    ["abci_query on app", abci({ path: "/app/simulate" }), -32602, 200],
    ["a height of -1", abci({ path: "/cosmos.bank.v1beta1.Query/AllBalances", height: "-1" }), -32602, 200],
    ["non-hex data", abci({ path: "/cosmos.bank.v1beta1.Query/AllBalances", data: "zz" }), -32602, 200],
    ["a block at height 0", { jsonrpc: "2.0", id: 1, method: "block", params: { height: "0" } }, -32602, 200],
    ["no jsonrpc version", { id: 1, method: "status" }, -32600, 200],
  ];
  for (const [name, body, code, status] of cases) {
    it(`refuses ${name} with ${code}`, async () => {
      const gw = rpcGateway();
      const response = await post(gw, body);
      expect(response.status).toBe(status);
      const answer = (await response.json()) as { error: { code: number; data: string } };
      expect(answer.error.code).toBe(code);
      expect(answer.error.data).toBeTruthy();
      expect(await rpcRequests(gw)).toBe(0);
    });
  }

  it("refuses URI-style calls the same way", async () => {
    const gw = rpcGateway();
    const refused = await gw.fetch("/rpc/broadcast_tx_sync?tx=0x00");
    expect(((await refused.json()) as { error: { code: number } }).error.code).toBe(-32601);
    const badPath = await gw.fetch('/rpc/abci_query?path="/cosmos.tx.v1beta1.Service/GetTxsEvent"');
    expect(((await badPath.json()) as { error: { code: number } }).error.code).toBe(-32602);
    expect(await rpcRequests(gw)).toBe(0);
    const served = await gw.fetch("/rpc/status");
    expect(((await served.json()) as { id: number; result: unknown }).id).toBe(-1);
    expect(await rpcRequests(gw, "status")).toBe(1);
    await gw.settle();
    // Asked again in the same form: from memory, still in CometBFT's URI-style answer.
    const again = await gw.fetch("/rpc/status");
    expect(again.headers.get("x-cache")).toBe("HIT");
    expect(((await again.json()) as { id: number; result: unknown }).id).toBe(-1);
    expect(await rpcRequests(gw, "status")).toBe(1);
  });

  it("answers 503 in JSON-RPC form when no RPC node is configured", async () => {
    // A profile without RPC nodes (neutral's) and RPC_UPSTREAM_URLS unset.
    const app = buildApp({ ...readConfig(env), rpcUpstreamUrls: [] });
    const response = await app.fetch(
      new Request(`${ORIGIN}/rpc`, { method: "POST", body: '{"jsonrpc":"2.0","id":1,"method":"status"}' }),
      env,
      createExecutionContext(),
    );
    expect(response.status).toBe(503);
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32603);
  });
});

describe("heights", () => {
  it("never serves a lower latest height than it served, when a node lags", async () => {
    const gw = rpcGateway();
    const statusHeight = async () => {
      const answer = (await (await post(gw, { jsonrpc: "2.0", id: 1, method: "status" })).json()) as {
        result: { sync_info: { latest_block_height: string } };
      };
      return Number(answer.result.sync_info.latest_block_height);
    };
    const first = await statusHeight();
    await gw.settle();
    await fault({ tag: gw.rpcTag, prefix: "/rpc/status", height_offset: -50 });
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 120_000);
    expect(await statusHeight()).toBeGreaterThanOrEqual(first);
    expect(await rpcRequests(gw, "status")).toBe(2);
  });

  it("fails over to the next node and answers an upstream failure as -32603", async () => {
    const [down, up] = [tag(), tag()];
    const gw = gateway([tag()], { RPC_UPSTREAM_URLS: `${DEVNET}/~${down}/rpc,${DEVNET}/~${up}/rpc` });
    await fault({ tag: down, prefix: "/rpc/", status: 502 });
    const answer = (await (await post(gw, { jsonrpc: "2.0", id: "f", method: "health" })).json()) as {
      result: unknown;
    };
    expect(answer.result).toEqual({});
    const dead = rpcGateway({}, [down]);
    await fault({ tag: down, prefix: "/rpc/", status: 502 });
    const failed = (await (await post(dead, { jsonrpc: "2.0", id: "g", method: "abci_info" })).json()) as {
      id: string;
      error: { code: number };
    };
    expect(failed).toMatchObject({ id: "g", error: { code: -32603 } });
  });
});

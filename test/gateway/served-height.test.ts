/**
 * Heights never go back across keys (src/gateway/served-height.ts), on both faces: after this
 * isolate served height h, an answer below h is asked again of the next node, a kept entry below
 * it is not served, and with no node at or above it a stale entry stands in, else the error. A
 * pinned read (a `blockchain` range up to a named height) neither moves a node on the board nor
 * raises the mark. A node's -32603 (HTTP 500 in the URI style) is asked again of the next node.
 * Lagging and failing nodes are devnet fault mounts (devnet/faults.ts).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { DEVNET, deployment, fault, freshAddress, gateway, tag, upstreamRequests, type Gateway } from "./helpers";

interface Reply {
  id: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; data: string };
}

afterEach(() => vi.useRealTimers());

/** A data center of its own (the cache key carries the origin): no other test's entries are in it. */
const ownOrigin = () => ({ origin: `https://${tag()}.edge.test` });

/** A gateway whose RPC nodes are devnet mounts `rpcTags`, in that order. */
function rpcGateway(rpcTags: string[], vars: Record<string, string> = {}): Gateway {
  const urls = rpcTags.map((t) => `${DEVNET}/~${t}/rpc`).join(",");
  return gateway([tag()], { RPC_UPSTREAM_URLS: urls, ...vars }, ownOrigin());
}

async function call(gw: Gateway, method: string, params: Record<string, unknown> = {}): Promise<Reply> {
  const response = await gw.fetch("/rpc", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: method, method, params }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Reply;
}

const statusHeight = async (gw: Gateway) =>
  Number(((await call(gw, "status")).result!.sync_info as { latest_block_height: string }).latest_block_height);
const blockHeight = (reply: Reply) => Number((reply.result!.block as { header: { height: string } }).header.height);
const rpcCount = (node: string, method: string) => upstreamRequests(`~${node}/rpc/${method}`);

describe("the RPC face after status said h", () => {
  it("answers a latest block at h or above: a lagging node's lower block is asked again of the next", async () => {
    const [a, b] = [tag(), tag()];
    const gw = rpcGateway([a, b]);
    const h = await statusHeight(gw);
    await fault({ tag: a, prefix: "/rpc/block", height_offset: -50 });
    expect(blockHeight(await call(gw, "block"))).toBeGreaterThanOrEqual(h);
    expect([await rpcCount(a, "block"), await rpcCount(b, "block")]).toEqual([1, 1]);
  });

  it("answers an error, never a lower block, when no other node has it", async () => {
    const a = tag();
    const gw = rpcGateway([a]);
    const h = await statusHeight(gw);
    await fault({ tag: a, prefix: "/rpc/block", height_offset: -50 });
    const reply = await call(gw, "block");
    expect(reply.result).toBeUndefined();
    expect(reply.error).toMatchObject({ code: -32603 });
    expect(reply.error!.data).toContain(String(h));
  });

  it("serves its stale block at or above h when the only node falls behind", async () => {
    const a = tag();
    const gw = rpcGateway([a]);
    const first = blockHeight(await call(gw, "block"));
    await gw.settle();
    await fault({ tag: a, prefix: "/rpc/block", height_offset: -50 });
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 120_000); // past the 1 s TTL and the SWR window: the node is asked and lags
    const response = await gw.fetch("/rpc/block");
    expect(response.headers.get("x-cache")).toBe("STALE-IF-ERROR");
    expect(blockHeight((await response.json()) as Reply)).toBe(first);
  });
});

describe("kept entries below the served height", () => {
  it("are served neither from memory nor from the Cache API while fresh: the next node is asked", async () => {
    const [a, b] = [tag(), tag()];
    const gw = rpcGateway([a, b], { UPSTREAM_COOLDOWN_MS: "0" });
    vi.useFakeTimers({ toFake: ["Date"] }); // the clock stands still: every entry stays fresh
    const x = blockHeight(await call(gw, "block")); // a answers; kept in memory and in the Cache API
    await gw.settle();
    await fault({ tag: b, height_offset: 50 });
    await fault({ tag: a, prefix: "/rpc/status", status: 502, times: 1 });
    expect(await statusHeight(gw)).toBeGreaterThanOrEqual(x + 50); // b, ahead, answers: served x + 50
    const again = blockHeight(await call(gw, "block"));
    expect(again).toBeGreaterThanOrEqual(x + 50);
    // b is asked (a, now known behind, comes second on the board), not the entries a gave.
    expect([await rpcCount(a, "block"), await rpcCount(b, "block")]).toEqual([1, 1]);
  });
});

describe("a node's -32603", () => {
  it("is asked again of the next node, also with HTTP 500: 20 calls in a row are answered", async () => {
    const [a, b] = [tag(), tag()];
    const gw = rpcGateway([a, b]);
    await fault({ tag: a, prefix: "/rpc/", rpc_error: { code: -32603, data: "store is closed" } });
    for (let i = 0; i < 20; i++) {
      const reply = await call(gw, i % 2 ? "abci_info" : "status");
      expect(reply.error).toBeUndefined();
      expect(reply.result).toBeDefined();
    }
    expect(await rpcCount(b, "")).toBeGreaterThanOrEqual(2);
  });

  it("is served with the node's words when every node answers it", async () => {
    const [a, b] = [tag(), tag()];
    const gw = rpcGateway([a, b]);
    const hash = "AB".repeat(32);
    const reply = await call(gw, "tx", { hash: btoa(String.fromCharCode(...Array(32).fill(0xab))) });
    expect(reply.error).toMatchObject({ code: -32603, data: `tx (${hash}) not found` });
    expect([await rpcCount(a, "tx"), await rpcCount(b, "tx")]).toEqual([1, 1]);
  });
});

describe("a pinned read", () => {
  it("keeps the node board: after a blockchain range read, latest reads stay on the first node", async () => {
    const [a, b] = [tag(), tag()];
    const gw = rpcGateway([a, b], { UPSTREAM_COOLDOWN_MS: "0" });
    await fault({ tag: a, prefix: "/rpc/status", status: 502, times: 1 });
    const h = await statusHeight(gw); // a fails, b answers: b is known at h
    const range = await call(gw, "blockchain", { minHeight: String(h - 15), maxHeight: String(h - 10) });
    expect((range.result!.block_metas as unknown[]).length).toBe(6);
    expect(await rpcCount(a, "blockchain")).toBe(1);
    await call(gw, "abci_info");
    expect([await rpcCount(a, "abci_info"), await rpcCount(b, "abci_info")]).toEqual([1, 0]);
  });

  it("does not raise the served height: a leading node's range top does not hold later latest reads", async () => {
    const a = tag();
    const gw = rpcGateway([a]);
    const h = await statusHeight(gw);
    await fault({ tag: a, prefix: "/rpc/blockchain", height_offset: 100, times: 1 });
    const range = await call(gw, "blockchain", { maxHeight: String(h + 50) });
    expect(Number(range.result!.last_height)).toBeGreaterThanOrEqual(h + 100);
    expect((await call(gw, "abci_info")).result).toBeDefined();
  });
});

describe("the REST face across keys", () => {
  it("asks the next node when one answers another key below the height already served", async () => {
    const [a, b] = [tag(), tag()];
    const gw = gateway([a, b], {}, ownOrigin());
    const first = await gw.fetch(`/api/cosmos/bank/v1beta1/balances/${freshAddress()}`);
    const h = Number(first.headers.get("x-cosmos-block-height"));
    const path = `/cosmos/bank/v1beta1/balances/${freshAddress()}`;
    await fault({ tag: a, prefix: path, height_offset: -50 });
    const second = await gw.fetch(`/api${path}`);
    expect(second.status).toBe(200);
    expect(Number(second.headers.get("x-cosmos-block-height"))).toBeGreaterThanOrEqual(h);
    expect([await upstreamRequests(`~${a}${path}`), await upstreamRequests(`~${b}${path}`)]).toEqual([1, 1]);
  });

  it("is not given the shield's entry below the height already served: the shield asks the nodes", async () => {
    const balances = () => `/cosmos/bank/v1beta1/balances/${freshAddress()}`;
    const [a, path] = [balances(), balances()];
    const first = await deployment(ownOrigin()).fetch(`/api${a}`); // the shield of `a` holds its answer at h
    const h = Number(first.headers.get("x-cosmos-block-height"));
    await fault({ prefix: path, height_offset: 50 }); // every node leads for `path`: served at h + 50 (or a block on)
    const served = Number((await deployment(ownOrigin()).fetch(`/api${path}`)).headers.get("x-cosmos-block-height"));
    expect(served).toBeGreaterThanOrEqual(h + 50);
    await fault({ prefix: a, height_offset: 60 });
    // Another data center: nothing of `a` in its cache; the shield's fresh entry at h is below what was served.
    const again = await deployment(ownOrigin()).fetch(`/api${a}`);
    expect(again.status).toBe(200);
    expect(Number(again.headers.get("x-cosmos-block-height"))).toBeGreaterThanOrEqual(served);
  });

  it("answers 502 UPSTREAM_BEHIND, never a lower height, when every node is behind and nothing is kept", async () => {
    const a = tag();
    const gw = gateway([a], {}, ownOrigin());
    await gw.fetch(`/api/cosmos/bank/v1beta1/balances/${freshAddress()}`);
    const path = `/cosmos/bank/v1beta1/balances/${freshAddress()}`;
    await fault({ tag: a, prefix: path, height_offset: -50 });
    const response = await gw.fetch(`/api${path}`);
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ details: [{ reason: "UPSTREAM_BEHIND" }] });
  });
});

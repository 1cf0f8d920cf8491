/**
 * The two block range reads through the edge, judged by CosmJS's Comet38Client beside the same
 * client pointed at the devnet's own CometBFT face: `blockchain` (block metas, at most 20,
 * highest first) and `block_search` / `blockSearchAll` (`block.height` conditions, pages), as a
 * CometBFT 0.38 node serves them (devnet/comet-blocks.ts), and the node's refusals passed on.
 */
import { Comet38Client, HttpBatchClient, HttpClient } from "@cosmjs/tendermint-rpc";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DEVNET, gateway, tag, upstreamRequests, type Gateway } from "./helpers";

let current: Gateway;
let origin = "";
const realFetch = globalThis.fetch;

beforeEach(() => {
  origin = `https://${tag()}.edge.test`;
  const rpcTag = tag();
  current = gateway([tag()], { RPC_UPSTREAM_URLS: `${DEVNET}/~${rpcTag}/rpc` }, { origin });
  // The client's requests to the origin reach the app under test; the app's own upstream requests reach the devnet.
  vi.spyOn(globalThis, "fetch").mockImplementation((input, init) => {
    const request = new Request(input, init);
    if (!request.url.startsWith(origin)) return realFetch(request);
    return current.fetch(request.url.slice(origin.length), request);
  });
});
afterEach(() => vi.restoreAllMocks());

async function pair() {
  const edge = await Comet38Client.create(new HttpClient(`${origin}/rpc`));
  const node = await Comet38Client.create(new HttpClient(`${DEVNET}/rpc`));
  const { syncInfo } = await node.status();
  // The devnet keeps blocks from the height it started at.
  return { edge, node, height: syncInfo.latestBlockHeight - 1, earliest: syncInfo.earliestBlockHeight ?? 1 };
}

/** The client's answer or the message it threw. */
const settled = (p: Promise<unknown>) =>
  p.then(
    (ok) => ({ ok }),
    (err: Error) => ({ error: err.message }),
  );

describe("blockchain through the edge", () => {
  it("answers a named range as the node does: highest first, at most 20", async () => {
    const { edge, node, height, earliest } = await pair();
    const min = Math.max(1, height - 30);
    const range = await edge.blockchain(min, height);
    const direct = await node.blockchain(min, height);
    // `lastHeight` is the node's head, which moves between the two questions.
    expect(range.blockMetas).toEqual(direct.blockMetas);
    expect(direct.lastHeight - range.lastHeight).toBeLessThanOrEqual(3);
    const heights = range.blockMetas.map((m) => m.header.height);
    expect(heights[0]).toBe(height);
    expect(heights.length).toBe(Math.min(20, height - Math.max(min, earliest) + 1));
    expect(heights).toEqual([...heights].sort((a, b) => b - a));
  });

  it("passes on the node's refusal of a range whose bottom is above its top", async () => {
    const { edge, node, height } = await pair();
    const refused = await settled(edge.blockchain(height, height - 5));
    expect(refused).toEqual(await settled(node.blockchain(height, height - 5)));
    expect(refused).toMatchObject({ error: expect.stringContaining("can't be greater than max height") });
  });
});

describe("block_search through the edge", () => {
  it("finds blocks by height as the node does, one page or every page", async () => {
    const { edge, node, height, earliest } = await pair();
    const low = Math.max(earliest, height - 34);
    const query = `block.height >= ${low} AND block.height <= ${height}`;
    const page = await edge.blockSearch({ query, per_page: 10 });
    expect(page).toEqual(await node.blockSearch({ query, per_page: 10 }));
    expect(page.totalCount).toBe(height - low + 1);
    // The first page holds the highest ten (CometBFT orders by height, highest first); CosmJS sorts them ascending.
    const top = Math.max(low, height - 9);
    expect(page.blocks.map((b) => b.block.header.height)).toEqual(
      Array.from({ length: height - top + 1 }, (_, i) => top + i),
    );
    const all = await edge.blockSearchAll({ query, per_page: 10 });
    expect(all).toEqual(await node.blockSearchAll({ query, per_page: 10 }));
    expect(all.blocks.map((b) => b.block.header.height)).toEqual(
      Array.from({ length: height - low + 1 }, (_, i) => low + i),
    );
  });

  it("answers one height, ascending order and a key no devnet block carries as the node does", async () => {
    const { edge, node, height } = await pair();
    for (const params of [
      { query: `block.height = ${height}` },
      // A closed range below the head: a block the devnet makes meanwhile is in neither answer.
      { query: `block.height >= ${height - 2} AND block.height <= ${height}`, order_by: "asc" as const },
      { query: `block.height <= ${height} AND begin_block.proposer = 'x'` },
    ]) {
      expect(await edge.blockSearch(params)).toEqual(await node.blockSearch(params));
    }
  });

  it("passes on the node's refusal of a query that does not parse and of a page past the end", async () => {
    const { edge, node, height } = await pair();
    for (const params of [{ query: "block.height >>> 1" }, { query: `block.height = ${height}`, page: 3 }]) {
      const refused = await settled(edge.blockSearch(params));
      expect(refused).toHaveProperty("error");
      expect(refused).toEqual(await settled(node.blockSearch(params)));
    }
  });

  it("answers a batch of range reads, each asked of the node once", async () => {
    const { height } = await pair();
    const batch = await Comet38Client.create(new HttpBatchClient(`${origin}/rpc`, { dispatchInterval: 5 }));
    const query = `block.height = ${height}`;
    const [range, found] = await Promise.all([batch.blockchain(height - 2, height), batch.blockSearch({ query })]);
    expect(range.blockMetas.length).toBe(3);
    expect(found.blocks[0]!.block.header.height).toBe(height);
    expect(await upstreamRequests("")).toBeGreaterThan(0);
  });
});

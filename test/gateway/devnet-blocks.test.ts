/**
 * The devnet's blocks: every change of state is a transaction in the next block, visible at that
 * block's height and not before, served by the stock block and transaction endpoints of a Cosmos
 * SDK 0.50 node in protobuf JSON (GetLatestBlock, GetBlockByHeight, GetBlockWithTxs, GetTxsEvent,
 * GetTx), which agree with each other.
 */
import { beforeAll, describe, expect, inject, it } from "vitest";
import { accountAddress } from "../helpers/sessions";
import { DEVNET, json } from "./helpers";

declare module "vitest" {
  export interface ProvidedContext {
    bareDevnetUrl: string;
    nodesDevnetUrl: string;
  }
}

interface Status {
  height: number;
  chain_id: string;
  namespace: string;
  bech32_prefix: string;
}
interface TxResponse {
  txhash: string;
  code: number;
  height: string;
}
type Message = Record<string, unknown> & { "@type": string };
interface Tx {
  body: { messages: Message[]; memo: string };
  auth_info: unknown;
  signatures: string[];
}
interface Block {
  header: { chain_id: string; height: string; time: string; proposer_address: string; last_block_id: { hash: string } };
  data: { txs: string[] };
  evidence: { evidence: unknown[] };
  last_commit: { height: string; signatures: unknown[] };
}
interface BlockAnswer {
  block_id: { hash: string; part_set_header: { total: number; hash: string } };
  block: Block;
  sdk_block: Block;
}

let words: Status;
beforeAll(async () => {
  words = await status();
});

async function status(base = DEVNET): Promise<Status> {
  return json<Status>(await fetch(`${base}/__devnet/status`));
}
/** A GET; with `height`, the state at that height (the `x-cosmos-block-height` request header). */
const get = (path: string, base = DEVNET, height?: number) =>
  fetch(`${base}${path}`, height === undefined ? {} : { headers: { "x-cosmos-block-height": String(height) } });
/** The height an answer was served at (grpc-gateway's header), refusals included. */
const servedAt = (response: Response) => Number(response.headers.get("grpc-metadata-x-cosmos-block-height"));
const getJson = async <T>(path: string, base = DEVNET) => {
  const response = await get(path, base);
  expect(response.status, path).toBe(200);
  return json<T>(response);
};
const fresh = () => accountAddress(words.bech32_prefix);
const authorizeMessage = (payoutRecipient: string, operator: string) => ({
  typeUrl: `/${words.namespace}.incentives.v1.MsgAuthorizeOperator`,
  value: { payoutRecipient, operator, label: "rack-k-1" },
});
const post = async <T>(path: string, body: unknown, base = DEVNET) =>
  json<T>(await fetch(`${base}${path}`, { method: "POST", body: JSON.stringify(body) }));
const broadcast = async (signer: string, messages: unknown[], wait = "") =>
  (await post<{ tx_response: TxResponse }>(`/__devnet/txs${wait}`, { signer, messages })).tx_response;

/**
 * Broadcasts the transactions `make` gives (each a list of messages, signed by the first message's
 * payout), again until all of them land in one block: on a loaded machine a block may land between two broadcasts.
 */
async function inOneBlock(make: () => { value: { payoutRecipient: string } }[][]): Promise<TxResponse[]> {
  for (;;) {
    const sent: TxResponse[] = [];
    for (const messages of make()) sent.push(await broadcast(messages[0]!.value.payoutRecipient, messages));
    if (sent.every((tx) => tx.height === sent[0]!.height)) return sent;
  }
}

/** Waits until the devnet's latest block is at least `height`. */
async function untilHeight(height: number): Promise<void> {
  while ((await status()).height < height) await new Promise((r) => setTimeout(r, 20));
}

async function sha256Hex(base64: string): Promise<string> {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0"))
    .join("")
    .toUpperCase();
}

async function expectNodeError(response: Response, httpStatus: number, code: number, message: string | RegExp) {
  expect(response.status).toBe(httpStatus);
  const body = await json<{ code: number; message: string; details: unknown[] }>(response);
  expect(body).toEqual({ code, message: expect.any(String), details: [] });
  if (typeof message === "string") expect(body.message).toBe(message);
  else expect(body.message).toMatch(message);
}

describe("devnet transactions land in the next block", () => {
  it(
    "shows nothing of a transaction before its block: no look-up, no " +
      "state, the block still in the future; all of it from that block on",
    async () => {
      const [payout, operator] = [fresh(), fresh()];
      const before = (await status()).height;
      const sent = await broadcast(payout, [authorizeMessage(payout, operator)]);
      const height = Number(sent.height);
      expect(height).toBeGreaterThan(before);
      // The state pinned at the block before: the authorization is not there, however late this runs.
      const pinned = await get(
        `/${words.namespace}/incentives/v1/operator_authorizations/${payout}`,
        DEVNET,
        height - 1,
      );
      expect(servedAt(pinned)).toBe(height - 1);
      expect((await json<{ authorizations: unknown[] }>(pinned)).authorizations).toEqual([]);
      // Each answer says the height it was served at, and is judged at that height: a block may land between two reads
      // (blocks are 200 ms here, and a loaded machine stalls longer), so no read assumes where the chain is.
      const tx = await get(`/cosmos/tx/v1beta1/txs/${sent.txhash}`);
      if (servedAt(tx) < height) {
        expect(servedAt(tx)).toBe(height - 1);
        await expectNodeError(tx, 404, 5, `tx not found: ${sent.txhash}`);
      } else expect(tx.status).toBe(200);
      const block = await get(`/cosmos/base/tendermint/v1beta1/blocks/${height}`);
      if (servedAt(block) < height)
        await expectNodeError(block, 400, 3, "requested block height is bigger then the chain length");
      else expect(block.status).toBe(200);
      await untilHeight(height);
      expect((await get(`/cosmos/tx/v1beta1/txs/${sent.txhash}`)).status).toBe(200);
      const listed = await getJson<{ authorizations: { operator: string }[] }>(
        `/${words.namespace}/incentives/v1/operator_authorizations/${payout}`,
      );
      expect(listed.authorizations.map((a) => a.operator)).toEqual([operator]);
    },
  );

  it(
    "makes every control route's change a transaction of the next block: an authorization, a node " + "registration",
    async () => {
      const [payout, operator] = [fresh(), fresh()];
      const authorized = await fetch(`${DEVNET}/__devnet/authorizations?wait=block`, {
        method: "POST",
        body: JSON.stringify({ payout_recipient: payout, operator, label: "rack-k-2" }),
      });
      expect(authorized.status).toBe(201);
      const authorizedAt = Number(authorized.headers.get("grpc-metadata-x-cosmos-block-height"));
      // Registered on the devnet whose node list only node tests change.
      const nodes = inject("nodesDevnetUrl");
      const registered = await post<{ registered_height: string }>(
        "/__devnet/nodes?wait=block",
        { operator, label: "rack-k-3" },
        nodes,
      );

      const inBlock = async (height: number, base = DEVNET) =>
        (await getJson<{ txs: Tx[] }>(`/cosmos/tx/v1beta1/txs/block/${height}`, base)).txs.flatMap(
          (tx) => tx.body.messages,
        );
      expect(await inBlock(authorizedAt)).toContainEqual({
        "@type": `/${words.namespace}.incentives.v1.MsgAuthorizeOperator`,
        payout_recipient: payout,
        operator,
        label: "rack-k-2",
      });
      const registration = (await inBlock(Number(registered.registered_height), nodes)).find(
        (m) => m.operator === operator,
      );
      expect(registration).toMatchObject({
        "@type": `/${words.namespace}.incentives.v1.MsgRegisterNode`,
        operator,
        payout_recipient: operator,
        label: "rack-k-3",
      });
    },
  );

  it("answers ?wait=block once the block holding the change is the latest", async () => {
    const payout = fresh();
    const sent = await broadcast(payout, [authorizeMessage(payout, fresh())], "?wait=block");
    expect((await status()).height).toBeGreaterThanOrEqual(Number(sent.height));
    expect((await get(`/cosmos/tx/v1beta1/txs/${sent.txhash}`)).status).toBe(200);
  });
});

describe("devnet block endpoints (stock Cosmos SDK 0.50 shapes)", () => {
  it(
    "serves a block with its transactions' bytes, the same " +
      "in GetBlockByHeight, GetBlockWithTxs, GetTxsEvent and GetTx",
    async () => {
      const payout = fresh();
      // A transaction and a failed one in one block (a failed transaction is in the block too); sent again
      // until they share one, since a block may land between two broadcasts on a loaded machine.
      const [ok, failed] = (await inOneBlock(() => [
        [authorizeMessage(payout, fresh())],
        [authorizeMessage(payout, fresh()), authorizeMessage(payout, payout)],
      ])) as [TxResponse, TxResponse];
      expect(ok.code).toBe(0);
      expect(failed.code).not.toBe(0);
      const height = Number(ok.height);
      await untilHeight(height);

      const byHeight = await getJson<BlockAnswer>(`/cosmos/base/tendermint/v1beta1/blocks/${height}`);
      expect(Object.keys(byHeight).sort()).toEqual(["block", "block_id", "sdk_block"]);
      expect(byHeight.block.header).toMatchObject({
        chain_id: words.chain_id,
        height: String(height),
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
      });
      expect(byHeight.block.header.proposer_address).toMatch(/^[A-Za-z0-9+/]{27}=$/);
      expect(byHeight.sdk_block.header.proposer_address.startsWith(`${words.bech32_prefix}valcons1`)).toBe(true);
      expect(byHeight.block.last_commit.height).toBe(String(height - 1));
      const previous = await getJson<BlockAnswer>(`/cosmos/base/tendermint/v1beta1/blocks/${height - 1}`);
      expect(byHeight.block.header.last_block_id.hash).toBe(previous.block_id.hash);
      // The block carries each transaction's bytes; their SHA-256 is the transaction hash.
      const hashes = await Promise.all(byHeight.block.data.txs.map(sha256Hex));
      expect(hashes).toEqual(expect.arrayContaining([ok.txhash, failed.txhash]));

      const withTxs = await getJson<{ txs: Tx[]; block_id: unknown; block: Block; pagination: unknown }>(
        `/cosmos/tx/v1beta1/txs/block/${height}`,
      );
      expect(Object.keys(withTxs).sort()).toEqual(["block", "block_id", "pagination", "txs"]);
      expect(withTxs.block_id).toEqual(byHeight.block_id);
      expect(withTxs.block).toEqual(byHeight.block);
      expect(withTxs.pagination).toEqual({ next_key: null, total: String(hashes.length) });
      const searched = await getJson<{ txs: Tx[]; tx_responses: TxResponse[]; pagination: unknown; total: string }>(
        `/cosmos/tx/v1beta1/txs?query=${encodeURIComponent(`tx.height=${height}`)}`,
      );
      expect(Object.keys(searched).sort()).toEqual(["pagination", "total", "tx_responses", "txs"]);
      expect(searched.pagination).toBeNull();
      expect(searched.total).toBe(String(hashes.length));
      expect(searched.tx_responses.map((r) => r.txhash)).toEqual(hashes);
      expect(searched.txs).toEqual(withTxs.txs);

      for (const sent of [ok, failed]) {
        const index = hashes.indexOf(sent.txhash);
        const single = await getJson<{ tx: Tx; tx_response: TxResponse }>(`/cosmos/tx/v1beta1/txs/${sent.txhash}`);
        expect(withTxs.txs[index]).toEqual(single.tx);
        expect(searched.tx_responses[index]).toEqual(single.tx_response);
        expect(single.tx_response).toMatchObject({ height: String(height), code: sent.code });
      }
      // Decoded messages in protobuf JSON: "@type" and snake_case fields.
      expect(withTxs.txs[hashes.indexOf(ok.txhash)]!.body.messages[0]).toEqual({
        "@type": `/${words.namespace}.incentives.v1.MsgAuthorizeOperator`,
        payout_recipient: payout,
        operator: expect.any(String),
        label: "rack-k-1",
      });
    },
  );

  it("serves the latest block with the height it answers at, and as a lagging node sees it", async () => {
    const before = (await status()).height;
    const response = await get("/cosmos/base/tendermint/v1beta1/blocks/latest");
    const latest = await json<BlockAnswer>(response);
    const height = Number(latest.block.header.height);
    expect(height).toBeGreaterThanOrEqual(before);
    expect(response.headers.get("grpc-metadata-x-cosmos-block-height")).toBe(String(height));

    const t = `t${crypto.randomUUID().slice(0, 8)}`;
    await fetch(`${DEVNET}/__devnet/faults`, {
      method: "POST",
      body: JSON.stringify({ tag: t, height_offset: -3, times: 1 }),
    });
    const lagging = await json<BlockAnswer>(await get(`/~${t}/cosmos/base/tendermint/v1beta1/blocks/latest`));
    expect(Number(lagging.block.header.height)).toBeLessThanOrEqual((await status()).height - 3);
  });

  it("pages a block's transactions by offset and limit, and refuses an offset past them", async () => {
    const payout = fresh();
    const sent = (await inOneBlock(() => [0, 1, 2].map(() => [authorizeMessage(payout, fresh())]))) as TxResponse[];
    const height = Number(sent[2]!.height);
    await untilHeight(height);
    const all = await getJson<{ txs: Tx[]; pagination: { total: string } }>(`/cosmos/tx/v1beta1/txs/block/${height}`);
    const total = all.txs.length;
    const page = await getJson<{ txs: Tx[]; pagination: { total: string } }>(
      `/cosmos/tx/v1beta1/txs/block/${height}?pagination.offset=1&pagination.limit=1`,
    );
    expect(page.txs).toEqual([all.txs[1]]);
    expect(page.pagination.total).toBe(String(total));
    await expectNodeError(
      await get(`/cosmos/tx/v1beta1/txs/block/${height}?pagination.offset=${total}`),
      400,
      3,
      /^out of range: cannot paginate/,
    );
  });

  it("answers a future, a zero, a malformed and an unavailable height with the node's errors", async () => {
    const { height } = await status();
    await expectNodeError(
      await get(`/cosmos/base/tendermint/v1beta1/blocks/${height + 100_000}`),
      400,
      3,
      "requested block height is bigger then the chain length",
    );
    await expectNodeError(
      await get("/cosmos/base/tendermint/v1beta1/blocks/0"),
      500,
      2,
      "height must be greater than 0, but got 0",
    );
    await expectNodeError(
      await get("/cosmos/base/tendermint/v1beta1/blocks/abc"),
      400,
      3,
      /strconv\.ParseInt: parsing "abc": invalid syntax/,
    );
    await expectNodeError(
      await get(`/cosmos/tx/v1beta1/txs/block/${height + 100_000}`),
      500,
      2,
      new RegExp(
        "^requested height \\d+ but height must not be less than 1 or greater than the current height \\d+: " +
          "invalid height$",
      ),
    );
    await expectNodeError(await get("/cosmos/tx/v1beta1/txs/block/0"), 500, 2, /invalid height$/);
    // Before the devnet started there are no blocks to serve (a node that joined by state sync).
    await expectNodeError(
      await get("/cosmos/base/tendermint/v1beta1/blocks/5"),
      500,
      2,
      /^height 5 is not available, lowest height is \d+$/,
    );
    await expectNodeError(
      await get("/cosmos/tx/v1beta1/txs/block/5"),
      500,
      2,
      /^height 5 is not available, lowest height is \d+$/,
    );
  });

  it(
    "prunes: a node that keeps only its last blocks " + "refuses older ones, its lowest block moving up with the chain",
    async () => {
      // The bare-header devnet keeps 5 blocks.
      const bare = inject("bareDevnetUrl");
      const lowest = async () => {
        const refused = await get("/cosmos/base/tendermint/v1beta1/blocks/1", bare);
        expect(refused.status).toBe(500);
        return Number(/lowest height is (\d+)$/.exec((await json<{ message: string }>(refused)).message)![1]);
      };
      const first = await lowest();
      while ((await status(bare)).height < first + 6) await new Promise((r) => setTimeout(r, 50));
      // The height first, then the lowest block: the chain only moves up in between, so neither read assumes it stood
      // still.
      const { height } = await status(bare);
      const later = await lowest();
      expect(later).toBeGreaterThan(first);
      expect(later).toBeGreaterThanOrEqual(height - 4);
      const gone = await get(`/cosmos/tx/v1beta1/txs/block/${later - 1}`, bare);
      expect(gone.status).toBe(500);
      const { message } = await json<{ message: string }>(gone);
      expect(message).toMatch(new RegExp(`^height ${later - 1} is not available, lowest height is \\d+$`));
      expect(Number(/(\d+)$/.exec(message)![1])).toBeGreaterThanOrEqual(later);
      // The latest block is always kept: read the height and that block, until no block landed in between.
      for (;;) {
        const latest = (await status(bare)).height;
        const kept = await get(`/cosmos/base/tendermint/v1beta1/blocks/${latest}`, bare);
        if (kept.status === 200) break;
        expect((await status(bare)).height).toBeGreaterThan(latest + 4);
      }
    },
  );

  it(
    "searches by tx.height only through `query` (SDK 0.50): none is 400, other searches are the devnet's 501, a " +
      "future height finds nothing",
    async () => {
      await expectNodeError(await get("/cosmos/tx/v1beta1/txs"), 400, 3, "query cannot be empty");
      // The pre-0.50 parameter is not read any more.
      await expectNodeError(
        await get(`/cosmos/tx/v1beta1/txs?events=${encodeURIComponent("tx.height=5")}`),
        400,
        3,
        "query cannot be empty",
      );
      await expectNodeError(
        await get(`/cosmos/tx/v1beta1/txs?query=${encodeURIComponent("message.sender='x'")}`),
        501,
        12,
        /tx\.height/,
      );
      const { height } = await status();
      expect(await getJson(`/cosmos/tx/v1beta1/txs?query=${encodeURIComponent(`tx.height=${height + 100}`)}`)).toEqual({
        txs: [],
        tx_responses: [],
        pagination: null,
        total: "0",
      });
    },
  );
});

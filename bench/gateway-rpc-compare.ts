/**
 * "A CosmJS frontend gets the same answers through the edge's `/rpc` as from the node itself":
 * `@cosmjs/stargate`'s StargateClient and `@cosmjs/tendermint-rpc`'s Comet38Client (over
 * HttpClient and HttpBatchClient) ask the same questions once at `<edge>/rpc` and once at the
 * node's RPC, and the answers must be deep-equal.
 *
 *   npm run compare:rpc                           # own devnet + wrangler dev on :8788
 *   npm run compare:rpc -- <edge/rpc> <node rpc>  # an already running pair
 *
 * The chain moves while it runs, so everything is asked at an explicit height or is immutable
 * (a block, a transaction, balances and accounts the run does not change), except the head,
 * which may differ by the blocks between two questions.
 */
import { isDeepStrictEqual } from "node:util";
import { StargateClient } from "@cosmjs/stargate";
import { accountParser } from "../devnet/cosmjs-account.ts";
import { Comet38Client, HttpBatchClient, HttpClient } from "@cosmjs/tendermint-rpc";
import { QueryAllBalancesRequest } from "cosmjs-types/cosmos/bank/v1beta1/query";
import { startDevnet } from "../devnet/server.ts";
import { startWranglerDev } from "./lib/wrangler-dev.ts";

type Question = [label: string, ask: (client: Clients) => Promise<unknown>];

interface Clients {
  stargate: StargateClient;
  comet: Comet38Client;
  batch: Comet38Client;
}

async function clients(rpc: string): Promise<Clients> {
  return {
    stargate: await StargateClient.connect(rpc, { accountParser }),
    comet: await Comet38Client.create(new HttpClient(rpc)),
    batch: await Comet38Client.create(new HttpBatchClient(rpc, { batchSizeLimit: 10, dispatchInterval: 5 })),
  };
}

/** The client's answer, or the error it threw (an error must be the same error too). */
async function answer(ask: () => Promise<unknown>): Promise<unknown> {
  try {
    return { ok: await ask() };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

async function compare(edgeRpc: string, nodeRpc: string, operator: string, denom: string, hash: string) {
  const [edge, node] = [await clients(edgeRpc), await clients(nodeRpc)];
  const height = (await node.stargate.getHeight()) - 1;
  const data = QueryAllBalancesRequest.encode({ address: operator, resolveDenom: false }).finish();
  const questions: Question[] = [
    ["getChainId", (c) => c.stargate.getChainId()],
    ["getAllBalances", (c) => c.stargate.getAllBalances(operator)],
    ["getBalance", (c) => c.stargate.getBalance(operator, denom)],
    ["getAccount", (c) => c.stargate.getAccount(operator)],
    ["getAccount of an unknown address", (c) => c.stargate.getAccount(operator.slice(0, -6) + "qqqqqq")],
    [`getBlock(${height})`, (c) => c.stargate.getBlock(height)],
    ["getTx", (c) => c.stargate.getTx(hash)],
    ["searchTx by hash", (c) => c.stargate.searchTx(`tx.hash='${hash}'`)],
    [
      `abciQuery AllBalances at ${height}`,
      (c) => c.comet.abciQuery({ path: "/cosmos.bank.v1beta1.Query/AllBalances", data, height }),
    ],
    [`commit(${height})`, (c) => c.comet.commit(height)],
    [`validators(${height})`, (c) => c.comet.validators({ height })],
    [`blockResults(${height})`, (c) => c.comet.blockResults(height)],
    ["tx by hash", (c) => c.comet.tx({ hash: Buffer.from(hash, "hex") })],
    // Its `lastHeight` is the node's head, which moves between the two questions: the metas are compared.
    [
      `blockchain(${height - 9}, ${height}) block metas`,
      (c) => c.comet.blockchain(height - 9, height).then((r) => r.blockMetas),
    ],
    [
      `blockSearch block.height in ${height - 4}..${height}`,
      (c) => c.comet.blockSearch({ query: `block.height >= ${height - 4} AND block.height <= ${height}` }),
    ],
    [
      `blockSearchAll block.height in ${height - 40}..${height}, 10 a page`,
      (c) =>
        c.comet.blockSearchAll({ query: `block.height > ${height - 41} AND block.height <= ${height}`, per_page: 10 }),
    ],
    ["blockSearch with a query that does not parse", (c) => c.comet.blockSearch({ query: "block.height >>> 1" })],
    [
      "batch: block, validators, abciQuery at a height",
      (c) =>
        Promise.all([
          c.batch.block(height),
          c.batch.validators({ height }),
          c.batch.abciQuery({ path: "/cosmos.bank.v1beta1.Query/AllBalances", data, height }),
        ]),
    ],
  ];
  let mismatches = 0;
  for (const [label, ask] of questions) {
    const [viaEdge, direct] = [await answer(() => ask(edge)), await answer(() => ask(node))];
    const same = isDeepStrictEqual(viaEdge, direct);
    if (!same) mismatches++;
    console.log(`${same ? "same     " : "DIFFERENT"}  ${label}`);
    if (!same) {
      const show = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? String(x) : x)).slice(0, 300);
      console.log(`  edge: ${show(viaEdge)}\n  node: ${show(direct)}`);
    }
  }
  // The head moves between two questions. The edge may answer a stale head at once while it
  // refreshes it (stale-while-revalidate), so it is asked again once that refresh is in.
  await edge.stargate.getHeight();
  await new Promise((resolve) => setTimeout(resolve, 300));
  const [edgeHead, nodeHead] = [await edge.stargate.getHeight(), await node.stargate.getHeight()];
  const headOk = nodeHead - edgeHead <= 3 && edgeHead <= nodeHead;
  if (!headOk) mismatches++;
  console.log(`${headOk ? "same     " : "DIFFERENT"}  getHeight (edge ${edgeHead}, node ${nodeHead})`);
  console.log(
    `\n${questions.length + 1 - mismatches}/${questions.length + 1} answered the same through ${edgeRpc} as from ${nodeRpc}`,
  );
  for (const c of [edge, node]) for (const client of [c.stargate, c.comet, c.batch]) client.disconnect();
  return mismatches;
}

/** The devnet's first seeded operator, its denom, and a transaction of its in a block. */
async function fixtures(devnet: string) {
  const status = (await (await fetch(`${devnet}/__devnet/status`)).json()) as {
    namespace: string;
    native_denom: string;
  };
  const nodes = (await (await fetch(`${devnet}/${status.namespace}/incentives/v1/nodes`)).json()) as {
    nodes: { operator: string }[];
  };
  const operator = nodes.nodes[0]!.operator;
  const sent = await fetch(`${devnet}/__devnet/txs?wait=block`, {
    method: "POST",
    body: JSON.stringify({
      signer: operator,
      memo: "compare:rpc",
      messages: [{ typeUrl: "/cosmos.bank.v1beta1.MsgSend", value: {} }],
    }),
  });
  const hash = ((await sent.json()) as { tx_response: { txhash: string } }).tx_response.txhash;
  return { operator, denom: status.native_denom, hash };
}

const [edgeArg, nodeArg] = process.argv.slice(2);
if (edgeArg && nodeArg) {
  const devnetBase = nodeArg.replace(/\/rpc\/?$/, "");
  const f = await fixtures(devnetBase);
  process.exit((await compare(edgeArg, nodeArg, f.operator, f.denom, f.hash)) === 0 ? 0 : 1);
}
const devnet = await startDevnet({ port: 0, blockMs: 500 });
const port = Number(process.env.RPC_COMPARE_PORT ?? 8788);
let mismatches = 1;
try {
  const worker = await startWranglerDev({
    port,
    vars: { UPSTREAM_URLS: devnet.url, RPC_UPSTREAM_URLS: `${devnet.url}/rpc` },
  });
  try {
    const f = await fixtures(devnet.url);
    mismatches = await compare(`${worker.url}/rpc`, `${devnet.url}/rpc`, f.operator, f.denom, f.hash);
  } finally {
    await worker.stop();
  }
} finally {
  await devnet.close();
}
process.exit(mismatches === 0 ? 0 : 1);

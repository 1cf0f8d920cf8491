/**
 * "A real LCD client gets the same answers through the gateway as from the node itself":
 * `@cosmology/lcd`'s LCDClient (the REST client under Telescope-generated query clients) asks
 * every query of groups A–E, plus upstream 4xx cases, once with restEndpoint = the gateway's
 * `/api` and once with restEndpoint = the upstream, and the answers must be deep-equal.
 *
 *   npm run compare:lcd                       # own devnet (height frozen) + wrangler dev on :8787
 *   npm run compare:lcd -- <gateway/api> <upstream>   # an already running pair
 *
 * The devnet it starts holds its block height still, so height-dependent answers (epoch,
 * supply, last-seen heights) compare exactly; against a live pair they may differ by a block.
 */
import { isDeepStrictEqual } from "node:util";
import { LCDClient } from "@cosmology/lcd";
import { startDevnet } from "../devnet/server.ts";
import { startWranglerDev } from "./lib/wrangler-dev.ts";

type Query = [endpoint: string, params?: Record<string, string>];

async function queries(upstream: string, ns: string): Promise<Query[]> {
  const nodes = (await (await fetch(`${upstream}/${ns}/incentives/v1/nodes`)).json()) as {
    nodes: { operator: string; payout_recipient: string }[];
  };
  const operator = nodes.nodes[0]!.operator;
  const payout = nodes.nodes[0]!.payout_recipient;
  return [
    [`${ns}/incentives/v1/params`],
    [`${ns}/incentives/v1/node/${operator}`],
    [`${ns}/incentives/v1/nodes`, { "pagination.limit": "2", "pagination.count_total": "true" }],
    [`${ns}/incentives/v1/nodes`, { "pagination.limit": "2", "pagination.key": "aToy" }],
    [`${ns}/incentives/v1/operator_authorizations/${payout}`],
    [`${ns}/incentives/v1/estimated_daily_payout`],
    [`${ns}/incentives/v1/network_summary`],
    [`cosmos/bank/v1beta1/balances/${operator}`],
    ["cosmos/bank/v1beta1/supply"],
    ["cosmos/bank/v1beta1/denoms_metadata"],
    ["cosmos/staking/v1beta1/validators", { status: "BOND_STATUS_BONDED", "pagination.reverse": "true" }],
    [`cosmos/staking/v1beta1/delegations/${operator}`],
    ["cosmos/staking/v1beta1/pool"],
    [`${ns}/trustscore/v1/params`],
    [`${ns}/trustscore/v1/epoch`],
    [`${ns}/trustscore/v1/global_trusts`, { "pagination.offset": "1", "pagination.limit": "3" }],
    [`${ns}/trustscore/v1/participant/${operator}`],
    [`${ns}/campaign/v1/campaigns`],
    [`${ns}/campaign/v1/campaign/1`],
    [`${ns}/campaign/v1/treasury/3`],
    // Upstream answers that are errors: the gateway passes them through unchanged.
    [`${ns}/incentives/v1/node/${payout}`],
    [`${ns}/trustscore/v1/participant/${payout}`],
    [`${ns}/campaign/v1/campaign/42`],
  ];
}

/** The client's result: the data, or the HTTP status and body it rejected with. */
async function ask(client: LCDClient, [endpoint, params]: Query): Promise<unknown> {
  try {
    return { ok: await client.get(endpoint, { params }) };
  } catch (err) {
    const response = (err as { response?: { status: number; data: unknown } }).response;
    if (!response) throw err;
    return { status: response.status, error: response.data };
  }
}

async function compare(gatewayApi: string, upstream: string): Promise<number> {
  const viaGateway = new LCDClient({ restEndpoint: gatewayApi });
  const direct = new LCDClient({ restEndpoint: upstream });
  let mismatches = 0;
  // The namespace the gateway serves (its /api/config sits beside the gateway's /api root).
  const { namespace } = (await (await fetch(`${gatewayApi}/config`)).json()) as { namespace: string };
  const list = await queries(upstream, namespace);
  for (const query of list) {
    const [a, b] = [await ask(viaGateway, query), await ask(direct, query)];
    const same = isDeepStrictEqual(a, b);
    if (!same) mismatches++;
    const label = `${query[0]}${query[1] ? `?${new URLSearchParams(query[1])}` : ""}`;
    console.log(
      `${same ? "same     " : "DIFFERENT"}  ${label}${"status" in (b as object) ? `  (${(b as { status: number }).status})` : ""}`,
    );
    if (!same)
      console.log(`  gateway: ${JSON.stringify(a).slice(0, 300)}\n  direct:  ${JSON.stringify(b).slice(0, 300)}`);
  }
  console.log(
    `\n${list.length - mismatches}/${list.length} queries answered the same through ${gatewayApi} as from ${upstream}`,
  );
  return mismatches;
}

const [gatewayArg, upstreamArg] = process.argv.slice(2);
if (gatewayArg && upstreamArg) {
  process.exit((await compare(gatewayArg, upstreamArg)) === 0 ? 0 : 1);
}
// A block time of ~30 years: the height stays put for the whole comparison.
const devnet = await startDevnet({ port: 0, blockMs: 1e12 });
const port = Number(process.env.LCD_COMPARE_PORT ?? 8787);
let mismatches = 1;
try {
  const worker = await startWranglerDev({ port, vars: { UPSTREAM_URLS: devnet.url } });
  try {
    mismatches = await compare(`${worker.url}/api`, devnet.url);
  } finally {
    await worker.stop();
  }
} finally {
  await devnet.close();
}
process.exit(mismatches === 0 ? 0 : 1);

/** The 19 routes through the deployed Worker's own route table, and every refusal before an upstream. */
import { toBech32 } from "@cosmjs/encoding";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import securityPage from "../../docs/SECURITY.md?raw";
import { readConfig } from "../../src/config";
import { GATEWAY_ROUTES } from "../../src/gateway/route-table";
import { errorReason, randomBytes } from "../helpers/sessions";
import { DEVNET, freshAddress, gateway, json, upstreamRequests } from "./helpers";

// The devnet's known accounts: hosted node 1's operator and the seeded payout recipient.
const devnetAccounts = async () => {
  const nodes = await json<{ nodes: { operator: string; payout_recipient: string }[] }>(
    await fetch(`${DEVNET}/chain/incentives/v1/nodes`),
  );
  return { operator: nodes.nodes[0]!.operator, payout: nodes.nodes[0]!.payout_recipient };
};

/** Each route with the top-level keys of its answer (the devnet speaks real Cosmos shapes). */
const routes = (operator: string, payout: string): [string, string[]][] => [
  ["/chain/incentives/v1/params", ["params"]],
  [`/chain/incentives/v1/node/${operator}`, ["node"]],
  ["/chain/incentives/v1/nodes?pagination.limit=2", ["nodes", "pagination"]],
  [`/chain/incentives/v1/operator_authorizations/${payout}`, ["authorizations", "pagination"]],
  ["/chain/incentives/v1/estimated_daily_payout", ["estimated_daily_payout", "active_nodes", "epoch"]],
  ["/chain/incentives/v1/network_summary", ["summary"]],
  [`/cosmos/bank/v1beta1/balances/${operator}`, ["balances", "pagination"]],
  ["/cosmos/bank/v1beta1/supply", ["supply", "pagination"]],
  ["/cosmos/bank/v1beta1/denoms_metadata", ["metadatas", "pagination"]],
  ["/cosmos/staking/v1beta1/validators?status=BOND_STATUS_BONDED", ["validators", "pagination"]],
  [`/cosmos/staking/v1beta1/delegations/${operator}`, ["delegation_responses", "pagination"]],
  ["/cosmos/staking/v1beta1/pool", ["pool"]],
  ["/chain/trustscore/v1/params", ["params"]],
  ["/chain/trustscore/v1/epoch", ["epoch"]],
  ["/chain/trustscore/v1/global_trusts", ["global_trusts", "pagination"]],
  [`/chain/trustscore/v1/participant/${operator}`, ["participant"]],
  ["/chain/campaign/v1/campaigns", ["campaigns", "pagination"]],
  ["/chain/campaign/v1/campaign/2", ["campaign"]],
  ["/chain/campaign/v1/treasury/2", ["treasury"]],
];

describe("the 19 query routes, mounted in the Worker at /api", () => {
  it("is mounted in the deployed Worker's route table, after the session routes", async () => {
    const refused = await exports.default.fetch(
      new Request(`https://edge.test/api/chain/incentives/v1/node/not-an-address`),
    );
    expect(refused.status).toBe(400);
    expect(await errorReason(refused)).toBe("INVALID_PATH_PARAMETER");
    expect(refused.headers.get("access-control-allow-origin")).toBe("*");
    const sessions = await exports.default.fetch(
      new Request("https://edge.test/api/wallet/sessions/cs_0123456789abcdef0123456789abcdef"),
    );
    expect(sessions.headers.get("access-control-allow-origin")).not.toBe("*");
  });

  it("answers every route with the upstream's JSON, status and block height", async () => {
    const { operator, payout } = await devnetAccounts();
    const table = routes(operator, payout);
    expect(table).toHaveLength(19);
    const gw = gateway();
    for (const [path, keys] of table) {
      const response = await gw.fetch(`/api${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get("content-type")).toContain("application/json");
      expect(Number(response.headers.get("x-cosmos-block-height")), path).toBeGreaterThan(1);
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
      const body = await json(response);
      expect(Object.keys(body).sort(), path).toEqual([...keys].sort());
      const direct = await json(await fetch(`${DEVNET}${path}`));
      expect(Object.keys(direct).sort(), path).toEqual(Object.keys(body).sort());
    }
  });

  it("passes the upstream's query parameters in canonical order (one cache entry per meaning)", async () => {
    const gw = gateway();
    const [t] = gw.tags;
    const a = await gw.fetch("/api/cosmos/staking/v1beta1/validators?status=BOND_STATUS_BONDED&pagination.limit=1");
    const b = await gw.fetch("/api/cosmos/staking/v1beta1/validators?pagination.limit=1&status=BOND_STATUS_BONDED");
    expect([a.status, b.status]).toEqual([200, 200]);
    // One entry for both spellings: one upstream request, at the sorted key.
    expect(await upstreamRequests(`~${t}/cosmos/staking/v1beta1/validators`)).toBe(1);
    expect(
      await upstreamRequests(`~${t}/cosmos/staking/v1beta1/validators?pagination.limit=1&status=BOND_STATUS_BONDED`),
    ).toBe(1);
    expect(await b.text()).toBe(await a.text());
    expect(
      (
        await json<{ validators: unknown[] }>(
          await gw.fetch("/api/cosmos/staking/v1beta1/validators?pagination.limit=1&status=BOND_STATUS_BONDED"),
        )
      ).validators,
    ).toHaveLength(1);
  });

  it("passes an upstream 404 (unknown node) through in the Cosmos error shape", async () => {
    const response = await gateway().fetch(`/api/chain/incentives/v1/node/${freshAddress()}`);
    expect(response.status).toBe(404);
    expect(await json(response)).toMatchObject({ code: 5, message: expect.stringContaining("not found") });
  });
});

describe("the routes the network's tools use", () => {
  /** A transaction the devnet has in a block: one operator authorization signed by its payout recipient. */
  async function includedTx(): Promise<string> {
    const payout = freshAddress();
    const { namespace } = readConfig(env);
    const message = {
      typeUrl: `/${namespace}.incentives.v1.MsgAuthorizeOperator`,
      value: { payoutRecipient: payout, operator: freshAddress(), label: "" },
    };
    const response = await fetch(`${DEVNET}/__devnet/txs?wait=block`, {
      method: "POST",
      body: JSON.stringify({ signer: payout, messages: [message] }),
    });
    return (await json<{ tx_response: { txhash: string; code: number } }>(response)).tx_response.txhash;
  }

  it("answers each exactly as the node does, in status and body", async () => {
    const { operator } = await devnetAccounts();
    const validators = await json<{ validators: { operator_address: string }[] }>(
      await fetch(`${DEVNET}/cosmos/staking/v1beta1/validators`),
    );
    const valoper = validators.validators[0]!.operator_address;
    const hash = await includedTx();
    const paths = [
      `/chain/incentives/v1/peer_grant/${operator}`,
      "/chain/incentives/v1/eligible_nodes?pagination.limit=1",
      `/cosmos/auth/v1beta1/accounts/${operator}`,
      `/cosmos/tx/v1beta1/txs/${hash}`,
      `/cosmos/distribution/v1beta1/delegators/${operator}/rewards`,
      `/cosmos/distribution/v1beta1/validators/${valoper}/commission`,
      "/cosmos/distribution/v1beta1/community_pool",
    ];
    const gw = gateway();
    for (const path of paths) {
      const response = await gw.fetch(`/api${path}`);
      const direct = await fetch(`${DEVNET}${path}`);
      expect(response.status, path).toBe(200);
      expect(direct.status, path).toBe(200);
      // Heights move between the two requests; the shape and the keys do not.
      expect(Object.keys(await json(response)).sort(), path).toEqual(Object.keys(await json(direct)).sort());
    }
  });

  it("keeps a found transaction for a day and a not-yet-found one for a second", async () => {
    const gw = gateway();
    const found = await gw.fetch(`/api/cosmos/tx/v1beta1/txs/${await includedTx()}`);
    expect(found.status).toBe(200);
    expect(found.headers.get("cache-control")).toMatch(/^public, max-age=86400, /);
    const unknown = "AB".repeat(32);
    const missing = await gw.fetch(`/api/cosmos/tx/v1beta1/txs/${unknown}`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get("cache-control")).toMatch(/^public, max-age=1, /);
  });
});

describe("refusals, each with zero upstream requests", () => {
  const address = freshAddress();
  const upper = address.toUpperCase();
  const wrongPrefix = toBech32("cosmos", randomBytes(20));
  const badChecksum = address.slice(0, -1) + (address.endsWith("q") ? "p" : "q");
  const longPayload = toBech32("chain", randomBytes(32));

  const cases: [string, number, string][] = [
    [`/api/chain/incentives/v1/node/${badChecksum}`, 400, "INVALID_PATH_PARAMETER"],
    [`/api/chain/incentives/v1/node/${wrongPrefix}`, 400, "INVALID_PATH_PARAMETER"],
    [`/api/chain/incentives/v1/operator_authorizations/${upper}`, 400, "INVALID_PATH_PARAMETER"],
    [`/api/cosmos/bank/v1beta1/balances/${longPayload}`, 400, "INVALID_PATH_PARAMETER"],
    ["/api/cosmos/bank/v1beta1/balances/chain1", 400, "INVALID_PATH_PARAMETER"],
    [`/api/cosmos/staking/v1beta1/delegations/${badChecksum}`, 400, "INVALID_PATH_PARAMETER"],
    [`/api/chain/trustscore/v1/participant/${wrongPrefix}`, 400, "INVALID_PATH_PARAMETER"],
    ["/api/chain/campaign/v1/campaign/abc", 400, "INVALID_PATH_PARAMETER"],
    ["/api/chain/campaign/v1/campaign/-1", 400, "INVALID_PATH_PARAMETER"],
    ["/api/chain/campaign/v1/campaign/007", 400, "INVALID_PATH_PARAMETER"],
    ["/api/chain/campaign/v1/campaign/18446744073709551616", 400, "INVALID_PATH_PARAMETER"],
    ["/api/chain/campaign/v1/treasury/1.5", 400, "INVALID_PATH_PARAMETER"],
    ["/api/chain/incentives/v1/params?foo=1", 400, "UNKNOWN_QUERY_PARAMETER"],
    ["/api/cosmos/bank/v1beta1/supply?pagination.limit=10&pagination.limit=20", 400, "DUPLICATE_QUERY_PARAMETER"],
    ["/api/cosmos/staking/v1beta1/validators?status=bonded", 400, "INVALID_QUERY_PARAMETER"],
    [`/api/cosmos/staking/v1beta1/validators?pagination.key=${"A".repeat(1025)}`, 400, "INVALID_QUERY_PARAMETER"],
    ["/api/cosmos/staking/v1beta1/pool?status=BOND_STATUS_BONDED", 400, "UNKNOWN_QUERY_PARAMETER"],
    [`/api/chain/incentives/v1/peer_grant/${wrongPrefix}`, 400, "INVALID_PATH_PARAMETER"],
    ["/api/chain/incentives/v1/eligible_nodes?limit=1", 400, "UNKNOWN_QUERY_PARAMETER"],
    [`/api/cosmos/auth/v1beta1/accounts/${badChecksum}`, 400, "INVALID_PATH_PARAMETER"],
    [`/api/cosmos/tx/v1beta1/txs/${"ab".repeat(31)}`, 400, "INVALID_PATH_PARAMETER"],
    [`/api/cosmos/tx/v1beta1/txs/${"zz".repeat(32)}`, 400, "INVALID_PATH_PARAMETER"],
    [`/api/cosmos/tx/v1beta1/txs/${"a".repeat(65)}`, 400, "INVALID_PATH_PARAMETER"],
    [`/api/cosmos/distribution/v1beta1/delegators/${wrongPrefix}/rewards`, 400, "INVALID_PATH_PARAMETER"],
    // An account address where a validator operator address (<prefix>valoper1…) belongs.
    [`/api/cosmos/distribution/v1beta1/validators/${address}/commission`, 400, "INVALID_PATH_PARAMETER"],
    ["/api/cosmos/distribution/v1beta1/community_pool?pagination.limit=1", 400, "UNKNOWN_QUERY_PARAMETER"],
    ["/api/chain/incentives%2Fv1/params", 400, "PATH_NOT_CANONICAL"],
    ["/api/chain/incentives/v1/node/%2e%2e%2Fparams", 400, "PATH_NOT_CANONICAL"],
    ["/api/chain//incentives/v1/params", 400, "PATH_NOT_CANONICAL"],
    ["/api/chain/incentives/v1/params/", 400, "PATH_NOT_CANONICAL"],
    ["/api/chain/incentives/v1/params;x=1", 400, "PATH_NOT_CANONICAL"],
    ["/api/chain/incentives/v1/%70arams", 400, "PATH_NOT_CANONICAL"],
    ["/api/chain/incentives/v1/unknown", 404, "ROUTE_NOT_FOUND"],
    ["/api/chain/incentives/v2/params", 404, "ROUTE_NOT_FOUND"],
    ["/api/cosmos/gov/v1beta1/proposals", 404, "ROUTE_NOT_FOUND"],
    ["/api/chain/incentives/v1/node", 404, "ROUTE_NOT_FOUND"],
    ["/api/chain", 404, "ROUTE_NOT_FOUND"],
  ];

  it.each(cases)("%s → %i %s", async (path, status, reason) => {
    const gw = gateway();
    const response = await gw.fetch(path);
    expect(response.status).toBe(status);
    expect(await errorReason(response)).toBe(reason);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("x-cache")).toBe("BYPASS");
    expect(response.headers.get("server-timing")).toMatch(/^cache;desc="BYPASS",total;dur=[\d.]+;desc="gateway"$/);
    await gw.settle();
    expect(await upstreamRequests(`~${gw.tags[0]}`)).toBe(0);
  });

  it("names the allowed parameters when refusing an unknown one", async () => {
    const response = await gateway().fetch("/api/cosmos/bank/v1beta1/supply?limit=10");
    const body = await json<{ message: string }>(response);
    expect(body.message).toContain('"limit"');
    expect(body.message).toContain(
      "pagination.key, pagination.offset, pagination.limit, pagination.count_total, pagination.reverse",
    );
    expect(
      (await json<{ message: string }>(await gateway().fetch("/api/chain/incentives/v1/params?x=1"))).message,
    ).toContain("takes no query parameters");
  });

  it("resolves dot segments before matching: ../ cannot smuggle a different upstream path past the table", async () => {
    const gw = gateway();
    const response = await gw.fetch("/api/chain/incentives/v1/node/../../../../cosmos/bank/v1beta1/supply");
    // The URL is resolved before the Worker sees it: this is a plain request for /api/cosmos/bank/v1beta1/supply, never
    // a trick.
    expect(
      new URL(`https://edge.test/api/chain/incentives/v1/node/../../../../cosmos/bank/v1beta1/supply`).pathname,
    ).toBe("/api/cosmos/bank/v1beta1/supply");
    expect(response.status).toBe(200);
  });
});

describe("the route table as docs/SECURITY.md counts it", () => {
  it("holds as many routes as the page names: its module queries and the network tools' queries", () => {
    const counted = /the (\d+) module queries\s+and the (\d+) the network's tools use/.exec(securityPage);
    expect(counted, "docs/SECURITY.md counts the gateway's routes").not.toBeNull();
    expect(GATEWAY_ROUTES).toHaveLength(Number(counted![1]) + Number(counted![2]));
  });
});

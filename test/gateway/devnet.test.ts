/**
 * The devnet's contract: a stand-in for the network's LCD node that answers like a stock Cosmos
 * SDK node behind grpc-gateway. The gateway tests, the wallet simulator, browser tests and fault
 * runs rely on it. Brand words come from the running devnet, never from this file.
 */
import { beforeAll, describe, expect, inject, it } from "vitest";
import { parseHeightHeaderForm } from "../../devnet/block-height.ts";
import { accountAddress } from "../helpers/sessions";
import { DEVNET, fault, freshAddress, gateway, json, tag } from "./helpers";

// Provided by devnet/vitest-global-setup.ts (a devnet started with heightHeader: "bare").
declare module "vitest" {
  export interface ProvidedContext {
    bareDevnetUrl: string;
  }
}

interface Status {
  height: number;
  chain_id: string;
  namespace: string;
  bech32_prefix: string;
  native_denom: string;
  height_header: string;
}
interface Pagination {
  next_key: string | null;
  total: string;
}
interface Authorization {
  payout_recipient: string;
  operator: string;
  label: string;
  authorized_at: string;
}
interface TxResponse {
  txhash: string;
  code: number;
  codespace: string;
  raw_log: string;
  height: string;
}

const GRPC_HEIGHT = "grpc-metadata-x-cosmos-block-height";
const BARE_HEIGHT = "x-cosmos-block-height";
const DEC = /^\d+\.\d{18}$/;

let words: Status;
beforeAll(async () => {
  words = await status();
});

async function status(base = DEVNET): Promise<Status> {
  return json<Status>(await fetch(`${base}/__devnet/status`));
}
const get = (path: string, init?: RequestInit) => fetch(`${DEVNET}${path.replace("{ns}", words.namespace)}`, init);
const getJson = async <T = Record<string, unknown>>(path: string, init?: RequestInit) => json<T>(await get(path, init));
/** Request headers for a historical read at `height`. */
const at = (height: number | string): RequestInit => ({ headers: { [BARE_HEIGHT]: String(height) } });
const fresh = () => accountAddress(words.bech32_prefix);
const heightOf = (response: Response) => Number(response.headers.get(GRPC_HEIGHT));

/** Expects the node's error: this HTTP status and `{code, message, details: []}`. */
async function expectNodeError(response: Response, httpStatus: number, code: number, message: string | RegExp = /./) {
  expect(response.status).toBe(httpStatus);
  const body = await json<{ code: number; message: string; details: unknown[] }>(response);
  expect(body).toEqual({ code, message: expect.any(String), details: [] });
  if (typeof message === "string") expect(body.message).toBe(message);
  else expect(body.message).toMatch(message);
}

const controlAuthorize = (body: unknown) =>
  fetch(`${DEVNET}/__devnet/authorizations?wait=block`, { method: "POST", body: JSON.stringify(body) });
const authorizeMessage = (payoutRecipient: string, operator: string, label = "") => ({
  typeUrl: `/${words.namespace}.incentives.v1.MsgAuthorizeOperator`,
  value: { payoutRecipient, operator, label },
});
async function broadcast(signer: string, messages: unknown[], memo?: string): Promise<TxResponse> {
  const response = await fetch(`${DEVNET}/__devnet/txs?wait=block`, {
    method: "POST",
    body: JSON.stringify({ signer, memo, messages }),
  });
  expect(response.status).toBe(200);
  return (await json<{ tx_response: TxResponse }>(response)).tx_response;
}
async function authorizations(payout: string, query = "", init?: RequestInit) {
  return getJson<{ authorizations: Authorization[]; pagination: Pagination }>(
    `/{ns}/incentives/v1/operator_authorizations/${payout}${query}`,
    init,
  );
}
const operatorsOf = async (payout: string, init?: RequestInit) =>
  (await authorizations(payout, "", init)).authorizations.map((a) => a.operator);
const nodes = async (query = "") =>
  getJson<{ nodes: { operator: string; payout_recipient: string; status: string }[]; pagination: Pagination }>(
    `/{ns}/incentives/v1/nodes${query}`,
  );

describe("devnet height header", () => {
  it(
    "answers with grpc-gateway's Grpc-Metadata-X-Cosmos-Block-Height, not the bare name, on answers and node " +
      "errors",
    async () => {
      const before = (await status()).height;
      const ok = await get("/{ns}/incentives/v1/params");
      expect(heightOf(ok)).toBeGreaterThanOrEqual(before);
      expect(ok.headers.get(BARE_HEIGHT)).toBeNull();
      const missing = await get("/{ns}/campaign/v1/campaign/99");
      expect(heightOf(missing)).toBeGreaterThanOrEqual(before);
      expect(missing.headers.get(BARE_HEIGHT)).toBeNull();
    },
  );

  it(
    "sends the bare name only for requests a rename_height fault matches; omit_height and height_offset work in " +
      "both forms",
    async () => {
      const t = tag();
      const path = `${DEVNET}/~${t}/cosmos/bank/v1beta1/supply`;
      const n = (await status()).height - 50;
      const fault = (spec: Record<string, unknown>) =>
        fetch(`${DEVNET}/__devnet/faults`, { method: "POST", body: JSON.stringify({ tag: t, times: 1, ...spec }) });

      await fault({ rename_height: true });
      const renamed = await fetch(path, at(n));
      expect([renamed.headers.get(BARE_HEIGHT), renamed.headers.get(GRPC_HEIGHT)]).toEqual([String(n), null]);
      const plain = await fetch(path, at(n));
      expect([plain.headers.get(BARE_HEIGHT), plain.headers.get(GRPC_HEIGHT)]).toEqual([null, String(n)]);

      await fault({ height_offset: -3 });
      expect((await fetch(path, at(n))).headers.get(GRPC_HEIGHT)).toBe(String(n - 3));
      await fault({ height_offset: 2, rename_height: true });
      expect((await fetch(path, at(n))).headers.get(BARE_HEIGHT)).toBe(String(n + 2));
      for (const spec of [{ omit_height: true }, { omit_height: true, rename_height: true }]) {
        await fault(spec);
        const omitted = await fetch(path, at(n));
        expect([omitted.status, omitted.headers.get(BARE_HEIGHT), omitted.headers.get(GRPC_HEIGHT)]).toEqual([
          200,
          null,
          null,
        ]);
      }
    },
  );

  it("sends only the bare name from a devnet started with heightHeader: 'bare' (a renaming proxy)", async () => {
    const bare = inject("bareDevnetUrl");
    expect((await status(bare)).height_header).toBe("bare");
    const response = await fetch(`${bare}/cosmos/bank/v1beta1/supply`);
    expect(Number(response.headers.get(BARE_HEIGHT))).toBeGreaterThan(1);
    expect(response.headers.get(GRPC_HEIGHT)).toBeNull();
    expect(words.height_header).toBe("grpc-metadata");
  });

  it("reads DEVNET_HEIGHT_HEADER: unset is grpc-metadata, bare is bare, anything else is refused", () => {
    expect([
      parseHeightHeaderForm(undefined),
      parseHeightHeaderForm(""),
      parseHeightHeaderForm("bare"),
      parseHeightHeaderForm("grpc-metadata"),
    ]).toEqual(["grpc-metadata", "grpc-metadata", "bare", "grpc-metadata"]);
    expect(() => parseHeightHeaderForm("x-cosmos")).toThrow(/grpc-metadata.*bare/);
  });
});

describe("the gateway reading the devnet's height", () => {
  it(
    "takes grpc-gateway's header, or the bare one a renaming proxy sends, and answers with it as " +
      "x-cosmos-block-height",
    async () => {
      const before = (await status()).height;
      for (const rename_height of [false, true]) {
        const gw = gateway();
        await fault({ tag: gw.tags[0], rename_height });
        const response = await gw.fetch(`/api/cosmos/bank/v1beta1/balances/${freshAddress()}`);
        expect(response.status).toBe(200);
        expect(Number(response.headers.get(BARE_HEIGHT)), `rename_height: ${rename_height}`).toBeGreaterThanOrEqual(
          before,
        );
      }
    },
  );
});

describe("devnet historical reads (request header x-cosmos-block-height)", () => {
  it("answers with the state at the asked height: the height header and height-derived data", async () => {
    const n = (await status()).height - 1000;
    const supply = await get("/cosmos/bank/v1beta1/supply", at(n));
    expect(heightOf(supply)).toBe(n);
    expect((await json<{ supply: { amount: string }[] }>(supply)).supply[0]!.amount).toBe(
      String(10n ** 15n + BigInt(n) * 1_000_000n),
    );
    expect(await getJson("/{ns}/trustscore/v1/epoch", at(n))).toMatchObject({
      epoch: { number: String(Math.floor(n / 600)) },
    });
    expect(await getJson("/{ns}/incentives/v1/estimated_daily_payout", at(n))).toMatchObject({
      epoch: String(Math.floor(n / 1200)),
    });
    // The node list is read at n too, and says so: its last proof is one block before n whatever the latest height is
    // by now.
    const nodes = await get("/{ns}/incentives/v1/nodes", at(n));
    expect(heightOf(nodes)).toBe(n);
    const node = await json<{ nodes: { last_seen_height: string }[] }>(nodes);
    expect(node.nodes[0]!.last_seen_height).toBe(String(n - 1));
    const pool = async (h: number) =>
      (await getJson<{ pool: { amount: string }[] }>("/cosmos/distribution/v1beta1/community_pool", at(h))).pool[0]!
        .amount;
    expect(await pool(n)).not.toBe(await pool(n + 1));
  });

  it("reads height 0 as the latest, like the SDK", async () => {
    const before = (await status()).height;
    expect(heightOf(await get("/{ns}/trustscore/v1/epoch", at(0)))).toBeGreaterThanOrEqual(before);
  });

  it(
    "refuses a future height and a height that is not an integer with the node's 400 code 3, reporting no " + "height",
    async () => {
      const future = await get("/{ns}/trustscore/v1/epoch", at((await status()).height + 1000));
      expect(future.headers.get(GRPC_HEIGHT)).toBeNull();
      await expectNodeError(future, 400, 3, /cannot query with height in the future/);
      for (const bad of ["abc", "-5", "1.5"])
        await expectNodeError(await get("/{ns}/trustscore/v1/epoch", at(bad)), 400, 3, /height/);
    },
  );
});

describe("devnet operator authorizations", () => {
  it(
    "records one through the control route (201), refuses the same pair (409) and self authorization (400), then " +
      "lists it",
    async () => {
      const payout = fresh();
      const operator = fresh();
      const created = await controlAuthorize({ payout_recipient: payout, operator, label: "rack-b-7" });
      expect(created.status).toBe(201);
      const entry = await json<Authorization>(created);
      expect(entry).toEqual({
        payout_recipient: payout,
        operator,
        label: "rack-b-7",
        authorized_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      });
      await expectNodeError(
        await controlAuthorize({ payout_recipient: payout, operator, label: "other" }),
        409,
        6,
        /authorization already exists/,
      );
      await expectNodeError(
        await controlAuthorize({ payout_recipient: payout, operator: payout, label: "" }),
        400,
        3,
        /self authorization/,
      );
      await expectNodeError(
        await controlAuthorize({ payout_recipient: payout, operator: "cosmos1notanaddress", label: "" }),
        400,
        3,
      );

      expect(await authorizations(payout)).toEqual({
        authorizations: [entry],
        pagination: { next_key: null, total: "1" },
      });
      const all = await json<{ authorizations: Authorization[] }>(await fetch(`${DEVNET}/__devnet/authorizations`));
      expect(all.authorizations).toContainEqual(entry);
    },
  );

  it("lists them under `authorizations`, paged with keys and counted only when asked", async () => {
    const payout = fresh();
    const operators = [fresh(), fresh(), fresh()];
    for (const operator of operators)
      expect((await controlAuthorize({ payout_recipient: payout, operator })).status).toBe(201);
    const first = await authorizations(payout, "?pagination.limit=2");
    expect(first.authorizations.map((a) => a.operator)).toEqual(operators.slice(0, 2));
    expect(first.pagination).toEqual({ next_key: expect.stringMatching(/^[A-Za-z0-9+/]+={0,2}$/), total: "0" });
    const rest = await authorizations(
      payout,
      "?pagination.limit=2&pagination.count_total=true" +
        `&pagination.key=${encodeURIComponent(first.pagination.next_key!)}`,
    );
    // count_total is ignored on a key page, as the SDK documents.
    expect([rest.authorizations.map((a) => a.operator), rest.pagination]).toEqual([
      operators.slice(2),
      { next_key: null, total: "0" },
    ]);
    expect((await authorizations(payout, "?pagination.limit=2&pagination.count_total=true")).pagination.total).toBe(
      "3",
    );
  });
});

describe("devnet pagination (query.Paginate)", () => {
  it("pages 100 by default and then counts the total", async () => {
    const payout = fresh();
    const statuses = await Promise.all(
      Array.from({ length: 101 }, () =>
        controlAuthorize({ payout_recipient: payout, operator: fresh() }).then((r) => r.status),
      ),
    );
    expect(new Set(statuses)).toEqual(new Set([201]));
    const first = await authorizations(payout);
    expect([first.authorizations.length, first.pagination.total]).toEqual([100, "101"]);
    const rest = await authorizations(payout, `?pagination.key=${encodeURIComponent(first.pagination.next_key!)}`);
    expect([rest.authorizations.length, rest.pagination]).toEqual([1, { next_key: null, total: "0" }]);
    expect((await authorizations(payout, "?pagination.limit=101")).pagination).toEqual({ next_key: null, total: "0" });
  });

  it("pages by offset, by key and in reverse", async () => {
    const all = (await nodes()).nodes.map((n) => n.operator);
    expect(all).toHaveLength(6);
    expect((await nodes("?pagination.offset=4")).nodes.map((n) => n.operator)).toEqual(all.slice(4));
    const down = await nodes("?pagination.reverse=true&pagination.limit=2");
    expect(down.nodes.map((n) => n.operator)).toEqual([all[5], all[4]]);
    const next = await nodes(
      `?pagination.reverse=true&pagination.limit=2&pagination.key=${encodeURIComponent(down.pagination.next_key!)}`,
    );
    expect(next.nodes.map((n) => n.operator)).toEqual([all[3], all[2]]);
    expect((await nodes("?pagination.limit=2&pagination.offset=4")).pagination.next_key).toBeNull();
  });

  it("refuses offset and key together, and values Go cannot parse, with the node's 400 code 3", async () => {
    const key = (await nodes("?pagination.limit=1")).pagination.next_key!;
    await expectNodeError(
      await get(`/{ns}/incentives/v1/nodes?pagination.offset=1&pagination.key=${encodeURIComponent(key)}`),
      400,
      3,
      "invalid request, either offset or key is expected, got both",
    );
    await expectNodeError(
      await get("/{ns}/incentives/v1/nodes?pagination.limit=abc"),
      400,
      3,
      'strconv.ParseUint: parsing "abc": invalid syntax',
    );
    await expectNodeError(
      await get("/{ns}/incentives/v1/nodes?pagination.offset=-1"),
      400,
      3,
      'strconv.ParseUint: parsing "-1": invalid syntax',
    );
    await expectNodeError(
      await get("/{ns}/incentives/v1/nodes?pagination.limit=18446744073709551616"),
      400,
      3,
      'strconv.ParseUint: parsing "18446744073709551616": value out of range',
    );
    await expectNodeError(
      await get("/{ns}/incentives/v1/nodes?pagination.count_total=yes"),
      400,
      3,
      'strconv.ParseBool: parsing "yes": invalid syntax',
    );
    await expectNodeError(
      await get("/{ns}/incentives/v1/nodes?pagination.reverse=2"),
      400,
      3,
      'strconv.ParseBool: parsing "2": invalid syntax',
    );
    await expectNodeError(
      await get("/{ns}/incentives/v1/nodes?pagination.key=a*b"),
      400,
      3,
      /^illegal base64 data at input byte \d+$/,
    );
    // grpc-gateway parses integers with base 0, so 0x2 is 2.
    expect((await nodes("?pagination.limit=0x2")).nodes).toHaveLength(2);
  });
});

describe("devnet queries", () => {
  it("answers in Cosmos shapes in the devnet's own brand words", async () => {
    expect(await getJson("/cosmos/bank/v1beta1/supply?pagination.count_total=true")).toEqual({
      supply: [{ denom: words.native_denom, amount: expect.stringMatching(/^\d+$/) }],
      pagination: { next_key: null, total: "1" },
    });
    expect(await getJson("/{ns}/incentives/v1/params")).toMatchObject({
      params: {
        sync_proof_min_interval: "7200s",
        daily_distribution_bps: "2000",
        liveness_mode: "PEER_LIVENESS_MODE_PROOF_ONLY",
        payout_denom: words.native_denom,
      },
    });
    await expectNodeError(await get("/{ns}/campaign/v1/campaign/99"), 404, 5);
    await expectNodeError(await get("/{ns}/campaign/v1/treasury/abc"), 400, 3);
    await expectNodeError(await get("/{ns}/nothing/here"), 404, 5);
  });

  it("holds hosted-node records with the documented fields", async () => {
    // Both reads at one height: a block landing in between would move a node's last_seen_height on.
    const listed = await get("/{ns}/incentives/v1/nodes");
    const height = heightOf(listed);
    const { nodes: records } = await json<{ nodes: Record<string, string>[] }>(listed);
    for (const node of records) {
      expect(Object.keys(node)).toEqual(
        expect.arrayContaining([
          "operator",
          "node_id",
          "external_address",
          "rpc_url",
          "label",
          "payout_recipient",
          "status",
        ]),
      );
      expect(node.operator!.startsWith(`${words.bech32_prefix}1`)).toBe(true);
      expect(node.node_id).toMatch(/^[0-9a-f]{40}$/);
      const ip = /^((?:203\.0\.113|198\.51\.100)\.\d{1,3}):26656$/.exec(node.external_address!)?.[1];
      expect(ip, node.external_address).toBeDefined();
      expect(node.rpc_url).toMatch(new RegExp(`^(http://)?${ip!.replaceAll(".", "\\.")}:26657$`));
    }
    expect(new Set(records.map((n) => n.node_id)).size).toBe(records.length);
    expect(await getJson(`/{ns}/incentives/v1/node/${records[0]!.operator}`, at(height))).toEqual({ node: records[0] });
  });

  it("answers peer_grant for a registered operator and 404 for another; lists eligible nodes", async () => {
    const { nodes: records } = await nodes();
    const grant = await getJson<{ peer_grant: { operator: string; allowed_messages: string[] } }>(
      `/{ns}/incentives/v1/peer_grant/${records[0]!.operator}`,
    );
    expect(grant.peer_grant.operator).toBe(records[0]!.operator);
    expect(grant.peer_grant.allowed_messages.every((m) => m.startsWith(`/${words.namespace}.incentives.v1.`))).toBe(
      true,
    );
    const stranger = fresh();
    await expectNodeError(await get(`/{ns}/incentives/v1/peer_grant/${stranger}`), 404, 5, new RegExp(stranger));
    await expectNodeError(await get("/{ns}/incentives/v1/peer_grant/nothing"), 400, 3);

    // Eligible: active, last proof at most 100 blocks old, healthy sync proofs; the seeded chain has a node failing
    // each rule.
    const n = (await status()).height - 10;
    const eligibleAt = async (h: number) =>
      getJson<{ eligible_nodes: { operator: string; payout_recipient: string }[]; pagination: Pagination }>(
        "/{ns}/incentives/v1/eligible_nodes",
        at(h),
      );
    const then = (
      await getJson<{
        nodes: { operator: string; payout_recipient: string; status: string; last_seen_height: string }[];
      }>("/{ns}/incentives/v1/nodes", at(n))
    ).nodes;
    const eligible = await eligibleAt(n);
    const active = then.filter((r) => r.status === "NODE_STATUS_ACTIVE");
    const recent = active.filter((r) => n - Number(r.last_seen_height) <= 100);
    expect(eligible.eligible_nodes.length).toBeGreaterThan(0);
    expect(recent.length).toBeLessThan(active.length);
    expect(eligible.eligible_nodes.length).toBeLessThan(recent.length);
    for (const e of eligible.eligible_nodes)
      expect(recent.find((r) => r.operator === e.operator)?.payout_recipient).toBe(e.payout_recipient);
    expect(eligible.pagination).toEqual({ next_key: null, total: String(eligible.eligible_nodes.length) });
    const inactive = then.find((r) => r.status !== "NODE_STATUS_ACTIVE")!;
    const soonAfter = Number(inactive.last_seen_height) + 50;
    expect((await eligibleAt(soonAfter)).eligible_nodes.map((e) => e.operator)).not.toContain(inactive.operator);
    expect((await eligibleAt(soonAfter)).eligible_nodes.length).toBeGreaterThan(0);
  });

  it("answers accounts as stock BaseAccounts and unknown ones with the node's 404", async () => {
    const operator = (await nodes()).nodes[0]!.operator;
    const { account } = await getJson<{ account: Record<string, unknown> }>(
      `/cosmos/auth/v1beta1/accounts/${operator}`,
    );
    expect(account).toEqual({
      "@type": "/cosmos.auth.v1beta1.BaseAccount",
      address: operator,
      pub_key: { "@type": expect.stringContaining(words.namespace), key: expect.any(String) },
      account_number: expect.stringMatching(/^\d+$/),
      sequence: expect.stringMatching(/^[1-9]\d*$/),
    });
    expect(atob((account.pub_key as { key: string }).key)).toHaveLength(1952);
    const stranger = fresh();
    await expectNodeError(
      await get(`/cosmos/auth/v1beta1/accounts/${stranger}`),
      404,
      5,
      `account ${stranger} not found`,
    );
    await expectNodeError(await get("/cosmos/auth/v1beta1/accounts/nothing"), 400, 3);
  });

  it("answers distribution rewards, commission and community pool with 18-decimal DecCoins", async () => {
    const payout = (await nodes()).nodes[0]!.payout_recipient;
    const rewards = await getJson<{
      rewards: { validator_address: string; reward: { denom: string; amount: string }[] }[];
      total: { denom: string; amount: string }[];
    }>(`/cosmos/distribution/v1beta1/delegators/${payout}/rewards`);
    expect(rewards.rewards.length).toBeGreaterThan(0);
    for (const r of rewards.rewards) {
      expect(r.validator_address.startsWith(`${words.bech32_prefix}valoper1`)).toBe(true);
      expect(r.reward).toEqual([{ denom: words.native_denom, amount: expect.stringMatching(DEC) }]);
    }
    expect(rewards.total).toEqual([{ denom: words.native_denom, amount: expect.stringMatching(DEC) }]);
    expect(await getJson(`/cosmos/distribution/v1beta1/delegators/${fresh()}/rewards`)).toEqual({
      rewards: [],
      total: [],
    });
    await expectNodeError(await get("/cosmos/distribution/v1beta1/delegators/nothing/rewards"), 400, 3);

    const validator = (
      await getJson<{ validators: { operator_address: string }[] }>("/cosmos/staking/v1beta1/validators")
    ).validators[0]!.operator_address;
    expect(await getJson(`/cosmos/distribution/v1beta1/validators/${validator}/commission`)).toEqual({
      commission: { commission: [{ denom: words.native_denom, amount: expect.stringMatching(DEC) }] },
    });
    await expectNodeError(await get(`/cosmos/distribution/v1beta1/validators/${payout}/commission`), 400, 3, /valoper/);
    expect(await getJson("/cosmos/distribution/v1beta1/community_pool")).toEqual({
      pool: [{ denom: words.native_denom, amount: expect.stringMatching(DEC) }],
    });
  });
});

describe("devnet transactions (POST /__devnet/txs)", () => {
  it(
    "applies a signed MsgAuthorizeOperator: code 0, an upper-case hash found in either case, listed from its block " +
      "on",
    async () => {
      const payout = fresh();
      const operator = fresh();
      const sent = await broadcast(payout, [authorizeMessage(payout, operator, "rack-c-1")], "onboarding");
      expect(sent).toEqual({
        txhash: expect.stringMatching(/^[0-9A-F]{64}$/),
        code: 0,
        codespace: "",
        raw_log: "",
        height: expect.stringMatching(/^\d+$/),
      });
      const height = Number(sent.height);
      expect(await operatorsOf(payout, at(height))).toEqual([operator]);
      expect(await operatorsOf(payout, at(height - 1))).toEqual([]);

      const found = await get(`/cosmos/tx/v1beta1/txs/${sent.txhash.toLowerCase()}`);
      expect(found.status).toBe(200);
      const { tx, tx_response } = await json<{
        tx: { body: { messages: unknown[]; memo: string } };
        tx_response: Record<string, unknown>;
      }>(found);
      expect(Object.keys(tx_response).sort()).toEqual([
        "code",
        "codespace",
        "data",
        "events",
        "gas_used",
        "gas_wanted",
        "height",
        "info",
        "logs",
        "raw_log",
        "timestamp",
        "tx",
        "txhash",
      ]);
      expect(tx_response).toMatchObject({
        height: sent.height,
        txhash: sent.txhash,
        code: 0,
        codespace: "",
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      });
      expect(tx_response.tx).toMatchObject({ "@type": "/cosmos.tx.v1beta1.Tx", body: tx.body });
      expect(tx.body.memo).toBe("onboarding");
      expect(tx.body.messages).toEqual([
        {
          "@type": `/${words.namespace}.incentives.v1.MsgAuthorizeOperator`,
          payout_recipient: payout,
          operator,
          label: "rack-c-1",
        },
      ]);

      // The signer's account exists from that block on, with its key and one transaction.
      await expectNodeError(await get(`/cosmos/auth/v1beta1/accounts/${payout}`, at(height - 1)), 404, 5);
      expect(await getJson(`/cosmos/auth/v1beta1/accounts/${payout}`)).toMatchObject({
        account: { address: payout, sequence: "1", pub_key: { key: expect.any(String) } },
      });
    },
  );

  it("records a repeated and a self authorization as failed incentives transactions that change nothing", async () => {
    const payout = fresh();
    const operator = fresh();
    expect((await broadcast(payout, [authorizeMessage(payout, operator)])).code).toBe(0);
    const again = await broadcast(payout, [authorizeMessage(payout, operator, "again")]);
    expect(again).toMatchObject({
      code: expect.any(Number),
      codespace: "incentives",
      raw_log: expect.stringContaining("authorization already exists"),
    });
    expect(again.code).not.toBe(0);
    const self = await broadcast(payout, [authorizeMessage(payout, payout)]);
    expect(self).toMatchObject({ codespace: "incentives", raw_log: expect.stringContaining("self authorization") });
    expect(self.code).not.toBe(0);
    expect(self.code).not.toBe(again.code);

    expect((await authorizations(payout)).authorizations).toEqual([expect.objectContaining({ operator, label: "" })]);
    const lookedUp = await getJson<{ tx_response: TxResponse }>(`/cosmos/tx/v1beta1/txs/${again.txhash}`);
    expect(lookedUp.tx_response).toMatchObject({
      code: again.code,
      codespace: "incentives",
      raw_log: again.raw_log,
      height: again.height,
    });
    // Failed transactions still used the signer's sequence.
    expect(await getJson(`/cosmos/auth/v1beta1/accounts/${payout}`)).toMatchObject({ account: { sequence: "3" } });
  });

  it("applies every message of a transaction or none", async () => {
    const payout = fresh();
    const [a, b] = [fresh(), fresh()];
    const failed = await broadcast(payout, [
      authorizeMessage(payout, a),
      authorizeMessage(payout, b),
      authorizeMessage(payout, a),
    ]);
    expect(failed.codespace).toBe("incentives");
    expect(failed.raw_log).toContain("message index: 2");
    expect(await operatorsOf(payout)).toEqual([]);
    expect((await broadcast(payout, [authorizeMessage(payout, a), authorizeMessage(payout, b)])).code).toBe(0);
    expect(await operatorsOf(payout)).toEqual([a, b]);
  });

  it("records message types it does not model as successful and changes nothing", async () => {
    const payout = fresh();
    const sent = await broadcast(payout, [
      {
        typeUrl: "/cosmos.bank.v1beta1.MsgSend",
        value: { fromAddress: payout, toAddress: fresh(), amount: [{ denom: words.native_denom, amount: "5" }] },
      },
    ]);
    expect(sent.code).toBe(0);
    const { tx } = await getJson<{ tx: { body: { messages: Record<string, unknown>[] } } }>(
      `/cosmos/tx/v1beta1/txs/${sent.txhash}`,
    );
    expect(tx.body.messages[0]).toMatchObject({ "@type": "/cosmos.bank.v1beta1.MsgSend", from_address: payout });
    expect(await operatorsOf(payout)).toEqual([]);
  });

  it("refuses at CheckTx an authorization the signer may not sign: never in a block, nothing changes", async () => {
    const [signer, payout, operator] = [fresh(), fresh(), fresh()];
    const refused = await broadcast(signer, [authorizeMessage(payout, operator)]);
    expect(refused).toMatchObject({
      code: expect.any(Number),
      codespace: "sdk",
      height: "0",
      raw_log: expect.stringContaining(payout),
    });
    expect(refused.code).not.toBe(0);
    await expectNodeError(await get(`/cosmos/tx/v1beta1/txs/${refused.txhash}`), 404, 5);
    expect(await operatorsOf(payout)).toEqual([]);
    await expectNodeError(await get(`/cosmos/auth/v1beta1/accounts/${signer}`), 404, 5);
  });

  it("shares one ledger with POST /__devnet/authorizations", async () => {
    const payout = fresh();
    const [a, b] = [fresh(), fresh()];
    expect((await controlAuthorize({ payout_recipient: payout, operator: a })).status).toBe(201);
    expect((await broadcast(payout, [authorizeMessage(payout, a)])).raw_log).toContain("authorization already exists");
    expect((await broadcast(payout, [authorizeMessage(payout, b)])).code).toBe(0);
    expect((await controlAuthorize({ payout_recipient: payout, operator: b })).status).toBe(409);
  });

  it("answers unknown and malformed hashes like a node", async () => {
    const unknown = Array.from(crypto.getRandomValues(new Uint8Array(32)), (x) => x.toString(16).padStart(2, "0")).join(
      "",
    );
    await expectNodeError(await get(`/cosmos/tx/v1beta1/txs/${unknown}`), 404, 5, `tx not found: ${unknown}`);
    await expectNodeError(await get("/cosmos/tx/v1beta1/txs/zz"), 500, 2, /^encoding\/hex: invalid byte/);
  });

  it("refuses malformed bodies with the node's 400 and records nothing", async () => {
    const payout = fresh();
    const post = (body: unknown) => fetch(`${DEVNET}/__devnet/txs`, { method: "POST", body: JSON.stringify(body) });
    for (const body of [
      { signer: "nothing", messages: [authorizeMessage(payout, fresh())] },
      { signer: payout, messages: [] },
      { signer: payout, messages: [{ typeUrl: "MsgSend", value: {} }] },
      { signer: payout, messages: [authorizeMessage(payout, "nothing")] },
      { signer: payout, memo: 5, messages: [authorizeMessage(payout, fresh())] },
    ]) {
      await expectNodeError(await post(body), 400, 3);
    }
    expect(await operatorsOf(payout)).toEqual([]);
    await expectNodeError(await get(`/cosmos/auth/v1beta1/accounts/${payout}`), 404, 5);
  });
});

describe("devnet counters and faults", () => {
  it("counts per mount tag and applies a fault the given number of times", async () => {
    const t = tag();
    const path = `/~${t}/${words.namespace}/incentives/v1/params`;
    await fetch(`${DEVNET}/__devnet/faults`, {
      method: "POST",
      body: JSON.stringify({ tag: t, status: 503, times: 1 }),
    });
    expect((await fetch(`${DEVNET}${path}`)).status).toBe(503);
    expect((await fetch(`${DEVNET}${path}`)).status).toBe(200);
    const seen = await json<{ count: number; by_path: Record<string, number> }>(
      await fetch(`${DEVNET}/__devnet/requests?prefix=~${t}`),
    );
    expect(seen).toMatchObject({ count: 2, by_path: { [`~${t}/${words.namespace}/incentives/v1/params`]: 2 } });
  });
});

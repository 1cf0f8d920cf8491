/**
 * What a real LCD node does, as the gateway meets it: the height under grpc-gateway's header name
 * or a proxy's bare one, historical reads, pagination parsed by the node itself.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { errorReason } from "../helpers/sessions";
import { resetServedHeight } from "../../src/gateway/served-height";
import { DEVNET, fault, freshAddress, gateway, json, lastUpstreamHeaders, tag, upstreamRequests } from "./helpers";

afterEach(() => {
  vi.useRealTimers();
});

const balances = () => `/cosmos/bank/v1beta1/balances/${freshAddress()}`;
const count = (t: string, path = "") => upstreamRequests(`~${t}${path}`);
const devnetHeight = async () => (await json<{ height: number }>(await fetch(`${DEVNET}/__devnet/status`))).height;

/** The two names a node's height comes under: the devnet's default (grpc-gateway's) and its renaming-proxy switch. */
const HEADER_FORMS: [string, Record<string, unknown>][] = [
  ["Grpc-Metadata-X-Cosmos-Block-Height", {}],
  ["a bare x-cosmos-block-height", { rename_height: true }],
];

describe("the block height an upstream answers with", () => {
  it("comes from the devnet under grpc-gateway's name by default, and bare with its switch", async () => {
    const t = tag();
    const byDefault = await fetch(`${DEVNET}/~${t}/chain/incentives/v1/params`);
    expect(byDefault.headers.get("grpc-metadata-x-cosmos-block-height")).toMatch(/^\d+$/);
    expect(byDefault.headers.get("x-cosmos-block-height")).toBeNull();
    await fault({ tag: t, rename_height: true });
    const renamed = await fetch(`${DEVNET}/~${t}/chain/incentives/v1/params`);
    expect(renamed.headers.get("x-cosmos-block-height")).toMatch(/^\d+$/);
    expect(renamed.headers.get("grpc-metadata-x-cosmos-block-height")).toBeNull();
  });

  it.each(HEADER_FORMS)("is read from %s and given to clients as x-cosmos-block-height", async (_form, spec) => {
    const gw = gateway();
    const path = balances();
    await fault({ tag: gw.tags[0], ...spec });
    const response = await gw.fetch(`/api${path}`);
    expect(Number(response.headers.get("x-cosmos-block-height"))).toBeGreaterThan(0);
    expect(response.headers.get("grpc-metadata-x-cosmos-block-height")).toBeNull();
  });

  it.each(HEADER_FORMS)("keeps the higher-height entry against a lagging node that sends %s", async (_form, spec) => {
    const gw = gateway();
    const [a] = gw.tags as [string];
    const path = balances();
    await fault({ tag: a, prefix: path, times: 1, ...spec });
    const first = await gw.fetch(`/api${path}`);
    const height = Number(first.headers.get("x-cosmos-block-height"));
    await gw.settle();
    await fault({ tag: a, prefix: path, height_offset: -1000, ...spec });
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 120_000);
    resetServedHeight(); // an isolate that served nothing yet: the key's own rule keeps the entry
    const lagging = await gw.fetch(`/api${path}`);
    expect(await count(a, path)).toBe(2);
    expect(lagging.headers.get("x-cache")).toBe("REVALIDATED");
    expect(Number(lagging.headers.get("x-cosmos-block-height"))).toBe(height);
  });

  it.each(HEADER_FORMS)("asks first a node that is not behind, when nodes send %s", async (_form, spec) => {
    const gw = gateway([tag(), tag()], { UPSTREAM_COOLDOWN_MS: "0" });
    const [a, b] = gw.tags as [string, string];
    await fault({ tag: b, ...spec });
    await fault({ tag: a, status: 500, times: 1 });
    await gw.fetch(`/api${balances()}`); // a fails, b answers at the current height
    await fault({ tag: a, height_offset: -50, ...spec });
    await gw.fetch(`/api${balances()}`); // a is asked first again and answers 50 blocks behind
    const path = balances();
    await gw.fetch(`/api${path}`);
    expect([await count(a, path), await count(b, path)]).toEqual([0, 1]);
  });
});

describe("historical reads (x-cosmos-block-height on the request)", () => {
  it("forwards the height, answers at it and keeps that answer for a day under a key of its own", async () => {
    const gw = gateway();
    const [t] = gw.tags as [string];
    const path = balances();
    const past = String((await devnetHeight()) - 1);
    const first = await gw.fetch(`/api${path}`, { headers: { "x-cosmos-block-height": past } });
    expect(first.status).toBe(200);
    expect(first.headers.get("x-cosmos-block-height")).toBe(past);
    expect(first.headers.get("cache-control")).toMatch(/^public, max-age=86400, /);
    expect((await lastUpstreamHeaders(`~${t}${path}`))["x-cosmos-block-height"]).toBe(past);
    await gw.settle();
    const again = await gw.fetch(`/api${path}`, { headers: { "x-cosmos-block-height": past } });
    expect([again.headers.get("x-cache"), again.headers.get("x-cosmos-block-height")]).toEqual(["HIT", past]);
    expect(await count(t, path)).toBe(1);
    // The latest state is another entry.
    const latest = await gw.fetch(`/api${path}`);
    expect(latest.headers.get("x-cache")).toBe("MISS");
    expect(Number(latest.headers.get("x-cosmos-block-height"))).toBeGreaterThan(Number(past));
    expect((await lastUpstreamHeaders(`~${t}${path}`))["x-cosmos-block-height"]).toBeUndefined();
  });

  it(
    "answers a past height even when a higher one is cached for the latest state (no monotonicity across " + "heights)",
    async () => {
      const gw = gateway();
      const path = balances();
      const latest = await gw.fetch(`/api${path}`);
      await gw.settle();
      const past = String(Number(latest.headers.get("x-cosmos-block-height")) - 1);
      const historical = await gw.fetch(`/api${path}`, { headers: { "x-cosmos-block-height": past } });
      expect([historical.headers.get("x-cache"), historical.headers.get("x-cosmos-block-height")]).toEqual([
        "MISS",
        past,
      ]);
      expect((await gw.fetch(`/api${path}`)).headers.get("x-cosmos-block-height")).toBe(
        latest.headers.get("x-cosmos-block-height"),
      );
    },
  );

  it("does not count a past height against the node that answered it", async () => {
    const gw = gateway([tag(), tag()], { UPSTREAM_COOLDOWN_MS: "0" });
    const [a, b] = gw.tags as [string, string];
    await fault({ tag: a, status: 500, times: 1 });
    await gw.fetch(`/api${balances()}`); // a fails, b answers at the current height
    await gw.fetch(`/api${balances()}`, { headers: { "x-cosmos-block-height": "1" } }); // a answers far in the past
    const path = balances();
    await gw.fetch(`/api${path}`);
    expect([await count(a, path), await count(b, path)]).toEqual([1, 0]);
  });

  it.each(["0", "-1", "abc", "007", "1.5", "+5", "18446744073709551616", ""])(
    "refuses the height %j with 400 and no upstream request",
    async (height) => {
      const gw = gateway();
      const response = await gw.fetch(`/api${balances()}`, { headers: { "x-cosmos-block-height": height } });
      expect(response.status).toBe(400);
      expect(await errorReason(response)).toBe("INVALID_BLOCK_HEIGHT");
      expect(response.headers.get("x-cache")).toBe("BYPASS");
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
      expect(await count(gw.tags[0]!)).toBe(0);
    },
  );
});

describe("pagination reaches the node as given", () => {
  const nodes = "/chain/incentives/v1/nodes";

  it("passes the node's own spellings untouched (sorted by name only)", async () => {
    const gw = gateway();
    const [t] = gw.tags as [string];
    const query = "pagination.reverse=1&pagination.limit=0x2&pagination.count_total=True";
    const response = await gw.fetch(`/api${nodes}?${query}`);
    // The node's answer at the same block: the records' last proofs move with every block.
    const direct = await fetch(`${DEVNET}${nodes}?${query}`, {
      headers: { "x-cosmos-block-height": response.headers.get("x-cosmos-block-height")! },
    });
    expect(response.status).toBe(direct.status);
    expect(await response.text()).toBe(await direct.text());
    expect(await count(t, `${nodes}?pagination.count_total=True&pagination.limit=0x2&pagination.reverse=1`)).toBe(1);
  });

  it.each([
    ["offset together with key", "pagination.key=AQ%3D%3D&pagination.offset=1"],
    ["a limit the node cannot parse", "pagination.limit=ten"],
    ["a key that is not base64", "pagination.key=%25%25"],
  ])("answers %s with the node's own refusal", async (_name, query) => {
    const gw = gateway();
    const response = await gw.fetch(`/api${nodes}?${query}`);
    const direct = await fetch(`${DEVNET}${nodes}?${query}`);
    expect(direct.status).toBe(400);
    expect(response.status).toBe(400);
    expect(response.headers.get("x-cache")).toBe("MISS");
    expect(await response.json()).toEqual(await direct.json());
    expect(await count(gw.tags[0]!)).toBe(1);
  });
});

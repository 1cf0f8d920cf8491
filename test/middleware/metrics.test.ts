/**
 * One Analytics Engine data point per request (src/middleware/metrics.ts), as the binding receives it. The local
 * dataset keeps nothing, so these tests run the app with GATEWAY_METRICS bound to a dataset double that keeps
 * every point (test/middleware/metrics-double.js, bound in vitest.config.ts).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DEVNET, fault, freshAddress, gateway, tag } from "../gateway/helpers";

interface Point {
  indexes?: string[];
  blobs?: string[];
  doubles?: number[];
}

const bindings = env as unknown as { METRICS_DATASET: AnalyticsEngineDataset; METRICS_POINTS: Fetcher };
const dataset = { bindings: { GATEWAY_METRICS: bindings.METRICS_DATASET } };

/** The points written while `act` ran: the dataset's points between two markers this test writes itself. */
async function pointsOf(act: () => Promise<unknown>): Promise<Point[]> {
  const start = `start-${crypto.randomUUID()}`;
  const end = `end-${crypto.randomUUID()}`;
  bindings.METRICS_DATASET.writeDataPoint({ blobs: [start] });
  await act();
  bindings.METRICS_DATASET.writeDataPoint({ blobs: [end] });
  for (let round = 0; round < 200; round++) {
    const all = (await (await bindings.METRICS_POINTS.fetch("http://metrics/")).json()) as Point[];
    const from = all.findIndex((p) => p.blobs?.[0] === start);
    const to = all.findIndex((p) => p.blobs?.[0] === end);
    if (from !== -1 && to !== -1) return all.slice(from + 1, to);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error("the dataset double never received the end marker");
}

describe("one metrics data point per request", () => {
  it("a REST miss: face rest, the route's pattern (not the path), MISS, status 200, milliseconds", async () => {
    const gw = gateway([tag()], {}, dataset);
    const address = freshAddress();
    const points = await pointsOf(() => gw.fetch(`/api/cosmos/bank/v1beta1/balances/${address}`));
    expect(points).toHaveLength(1);
    const [point] = points;
    expect(point!.indexes).toEqual(["/api/cosmos/bank/v1beta1/balances/:address"]);
    expect(point!.blobs!.slice(0, 3)).toEqual(["rest", "/api/cosmos/bank/v1beta1/balances/:address", "MISS"]);
    expect(JSON.stringify(point)).not.toContain(address);
    expect(point!.doubles![1]).toBe(200);
    expect(point!.doubles![0]).toBeGreaterThanOrEqual(0);
  });

  it("the node of a miss is the X-Edge-Upstream origin the response names", async () => {
    const gw = gateway([tag()], {}, dataset);
    let named: string | null = null;
    const points = await pointsOf(async () => {
      const response = await gw.fetch(`/api/cosmos/bank/v1beta1/balances/${freshAddress()}`);
      named = response.headers.get("x-edge-upstream");
    });
    expect(named).toBe(new URL(DEVNET).origin);
    expect(points).toHaveLength(1);
    expect(points[0]!.blobs![3]).toBe(named);
  });

  it("a hit from the isolate's memory writes its own point: HIT", async () => {
    const gw = gateway([tag()], {}, dataset);
    const path = `/api/cosmos/bank/v1beta1/balances/${freshAddress()}`;
    await gw.fetch(path);
    const points = await pointsOf(() => gw.fetch(path));
    expect(points).toHaveLength(1);
    expect(points[0]!.blobs!.slice(0, 4)).toEqual(["rest", "/api/cosmos/bank/v1beta1/balances/:address", "HIT", ""]);
    expect(points[0]!.doubles![1]).toBe(200);
  });

  it("an upstream failure is counted with its status", async () => {
    const t = tag();
    const failing = `/cosmos/bank/v1beta1/balances/${freshAddress()}`;
    await fault({ tag: t, prefix: failing, status: 500 });
    const points = await pointsOf(() => gateway([t], {}, dataset).fetch(`/api${failing}`));
    expect(points).toHaveLength(1);
    expect(points[0]!.blobs![0]).toBe("rest");
    expect(points[0]!.doubles![1]).toBe(502);
  });

  it("the RPC face, the live face and the host API are told apart; the API has no cache status", async () => {
    const gw = gateway([tag()], { RPC_UPSTREAM_URLS: `${DEVNET}/~${tag()}/rpc` }, dataset);
    const rpc = await pointsOf(() => gw.fetch("/rpc/status"));
    expect(rpc.map((p) => p.blobs![0])).toEqual(["rpc"]);
    const live = await pointsOf(() => gw.fetch("/rpc/websocket"));
    expect(live.map((p) => p.blobs!.slice(0, 2))).toEqual([["live", "/rpc/websocket"]]);
    const api = await pointsOf(() => gw.fetch("/api/config"));
    expect(api.map((p) => p.blobs!.slice(0, 3))).toEqual([["api", "/api/config", ""]]);
    expect(api[0]!.doubles![1]).toBe(200);
  });

  it("a path no route has is counted under a pattern, not its path", async () => {
    const unknown = `/api/no-such-${crypto.randomUUID()}`;
    const points = await pointsOf(() => gateway([tag()], {}, dataset).fetch(unknown));
    expect(points).toHaveLength(1);
    expect(points[0]!.doubles![1]).toBe(404);
    expect(JSON.stringify(points[0])).not.toContain(unknown);
  });
});

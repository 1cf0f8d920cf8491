/** Failover, timeouts, skipping a failing node, and block-height monotonicity across upstreams. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { errorReason } from "../helpers/sessions";
import { NEVER_MS, fault, freshAddress, gateway, json, tag, upstreamRequests } from "./helpers";

afterEach(() => {
  vi.useRealTimers();
});

const balances = () => `/cosmos/bank/v1beta1/balances/${freshAddress()}`;
const count = (t: string, path = "") => upstreamRequests(`~${t}${path}`);

describe("failover before the first byte", () => {
  it.each([
    ["a 500", { status: 500 }],
    ["a 503", { status: 503 }],
    ["a 429", { status: 429 }],
    ["a dropped connection", { drop: true }],
    ["a non-JSON 200", { status: 200, body: "<html>captive portal</html>" }],
    // Not followed: a node that redirects is misconfigured or captive, and the client must never see where to.
    ["a 302 redirect", { status: 302 }],
    ["a 301 redirect with a JSON body", { status: 301, body: '{"moved":true}', content_type: "application/json" }],
  ])("moves to the next upstream on %s", async (_name, spec) => {
    const gw = gateway([tag(), tag()]);
    const [a, b] = gw.tags as [string, string];
    const path = balances();
    await fault({ tag: a, prefix: path, ...spec });
    const response = await gw.fetch(`/api${path}`);
    expect(response.status).toBe(200);
    expect((await json(response)).balances).toBeDefined();
    expect([await count(a, path), await count(b, path)]).toEqual([1, 1]);
  });

  it("does not fail over on a 4xx: it is the answer", async () => {
    const gw = gateway([tag(), tag()]);
    const [a, b] = gw.tags as [string, string];
    const path = `/chain/campaign/v1/campaign/${900_000 + Math.floor(Math.random() * 1e6)}`;
    const response = await gw.fetch(`/api${path}`);
    expect(response.status).toBe(404);
    expect([await count(a, path), await count(b, path)]).toEqual([1, 0]);
  });

  it("moves on when an upstream does not answer within the per-attempt timeout", async () => {
    // The second upstream must answer within it: the suite's 1 s, which a loaded machine keeps.
    const gw = gateway([tag(), tag()], { UPSTREAM_TIMEOUT_MS: "1000" });
    const [a, b] = gw.tags as [string, string];
    const path = balances();
    await fault({ tag: a, prefix: path, delay_ms: NEVER_MS });
    const response = await gw.fetch(`/api${path}`);
    expect(response.status).toBe(200);
    expect([await count(a, path), await count(b, path)]).toEqual([1, 1]);
  });

  it("answers 504 when no upstream answers in time", async () => {
    const gw = gateway([tag(), tag()], { UPSTREAM_TIMEOUT_MS: "100" });
    const path = balances();
    await fault({ prefix: path, delay_ms: NEVER_MS });
    const response = await gw.fetch(`/api${path}`);
    expect(response.status).toBe(504);
    expect(await json(response)).toMatchObject({
      code: 4,
      message: expect.stringContaining("upstream #2 no answer within 100 ms"),
    });
  });

  it("stops at the total budget instead of trying every upstream", async () => {
    const gw = gateway([tag(), tag(), tag()], { UPSTREAM_TIMEOUT_MS: "150", UPSTREAM_BUDGET_MS: "200" });
    const [a, b, c] = gw.tags as [string, string, string];
    const path = balances();
    await fault({ prefix: path, delay_ms: NEVER_MS });
    const response = await gw.fetch(`/api${path}`);
    expect(response.status).toBe(504);
    expect(await errorReason(response)).toBe("UPSTREAM_TIMEOUT");
    expect([await count(a, path), await count(b, path), await count(c, path)]).toEqual([1, 1, 0]);
  });

  it("answers 502 when every upstream is unreachable", async () => {
    const gw = gateway([tag(), tag()]);
    const path = balances();
    await fault({ prefix: path, drop: true });
    const response = await gw.fetch(`/api${path}`);
    expect(response.status).toBe(502);
    expect(await json(response)).toMatchObject({ code: 14, message: expect.stringContaining("unreachable") });
  });
});

describe("a failing upstream is skipped for a while", () => {
  it("asks the healthy one first until the cooldown ends, then the first again", async () => {
    const gw = gateway([tag(), tag()], { UPSTREAM_COOLDOWN_MS: "30000" });
    const [a, b] = gw.tags as [string, string];
    await fault({ tag: a, status: 500, times: 1 });
    expect((await gw.fetch(`/api${balances()}`)).status).toBe(200);
    expect([await count(a), await count(b)]).toEqual([1, 1]);
    for (let i = 0; i < 3; i++) expect((await gw.fetch(`/api${balances()}`)).status).toBe(200);
    expect([await count(a), await count(b)]).toEqual([1, 4]);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 31_000);
    expect((await gw.fetch(`/api${balances()}`)).status).toBe(200);
    expect([await count(a), await count(b)]).toEqual([2, 4]);
  });

  it("still tries a skipped upstream as a last resort", async () => {
    const gw = gateway([tag(), tag()], { UPSTREAM_COOLDOWN_MS: "30000" });
    const [a, b] = gw.tags as [string, string];
    await fault({ tag: a, status: 500, times: 1 });
    await gw.fetch(`/api${balances()}`); // a fails once and is skipped
    await fault({ tag: b, status: 500 });
    const path = balances();
    const response = await gw.fetch(`/api${path}`);
    expect(response.status).toBe(200);
    expect([await count(b, path), await count(a, path)]).toEqual([1, 1]);
  });
});

describe("block-height monotonicity", () => {
  it("never replaces a cached entry with an answer at a lower height", async () => {
    const gw = gateway();
    const [a] = gw.tags as [string];
    const path = balances();
    const first = await gw.fetch(`/api${path}`);
    const height = Number(first.headers.get("x-cosmos-block-height"));
    const body = await first.text();
    await gw.settle();
    await fault({ tag: a, prefix: path, height_offset: -1000 });
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 120_000); // past TTL and SWR: the request waits for the lagging node
    const lagging = await gw.fetch(`/api${path}`);
    expect(await count(a, path)).toBe(2);
    // The only node is below the height this edge served: the stale entry stands in (src/gateway/served-height.ts).
    expect(lagging.headers.get("x-cache")).toBe("STALE-IF-ERROR");
    expect(Number(lagging.headers.get("x-cosmos-block-height"))).toBe(height);
    expect(await lagging.text()).toBe(body);
    await gw.settle();
    // The node is asked again next time: a lagging answer confirms nothing.
    expect((await gw.fetch(`/api${path}`)).headers.get("x-cache")).toBe("STALE-IF-ERROR");
    expect(await count(a, path)).toBe(3);
  });

  it("replaces the entry when the answer is at the same or a higher height", async () => {
    const gw = gateway();
    const [a] = gw.tags as [string];
    const path = balances();
    const height = Number((await gw.fetch(`/api${path}`)).headers.get("x-cosmos-block-height"));
    await gw.settle();
    await fault({ tag: a, prefix: path, height_offset: 1000 });
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 120_000);
    const ahead = await gw.fetch(`/api${path}`);
    expect(ahead.headers.get("x-cache")).toBe("MISS");
    expect(Number(ahead.headers.get("x-cosmos-block-height"))).toBeGreaterThanOrEqual(height + 1000);
  });

  it(
    "lets an answer without a height replace the entry (a proxy that strips the header must not " + "freeze it)",
    async () => {
      const gw = gateway();
      const [a] = gw.tags as [string];
      const path = balances();
      await gw.fetch(`/api${path}`);
      await gw.settle();
      await fault({ tag: a, prefix: path, omit_height: true });
      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime(Date.now() + 120_000);
      const response = await gw.fetch(`/api${path}`);
      expect(response.headers.get("x-cache")).toBe("MISS");
      expect(response.headers.get("x-cosmos-block-height")).toBeNull();
    },
  );
});

/** Cache semantics: hit, 304, HEAD, CORS, 405, brief 4xx caching, non-JSON, SWR, stale-if-error, coalescing. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { errorReason } from "../helpers/sessions";
import { NEVER_MS, fault, freshAddress, freshPageKey, gateway, json, tag, upstreamRequests } from "./helpers";

afterEach(() => {
  vi.useRealTimers();
});

/**
 * Moves the gateway's clock (Date only). The devnet and the Cache API keep real time, so an entry
 * stays stored however far this goes: what the Cache API keeps is tested in real time below.
 */
function advanceSeconds(seconds: number): void {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(Date.now() + seconds * 1000);
}

const balances = (address: string) => `/cosmos/bank/v1beta1/balances/${address}`;

describe("cache hit", () => {
  it(
    "serves the second request from the cache with one upstream request, Age, Cache-Control, ETag and " +
      "Server-Timing",
    async () => {
      const gw = gateway();
      const path = balances(freshAddress());
      const first = await gw.fetch(`/api${path}`);
      expect(first.status).toBe(200);
      expect(first.headers.get("x-cache")).toBe("MISS");
      expect(first.headers.get("server-timing")).toMatch(/miss;dur=\d+/);
      await gw.settle();
      const second = await gw.fetch(`/api${path}`);
      expect(second.headers.get("x-cache")).toBe("HIT");
      expect(second.headers.get("server-timing")).toContain('cache;desc="HIT"');
      expect(second.headers.get("server-timing")).not.toContain("miss;");
      expect(second.headers.get("cache-control")).toMatch(
        /^public, max-age=[0-5], stale-while-revalidate=60, stale-if-error=86400$/,
      );
      expect(Number(second.headers.get("age"))).toBeGreaterThanOrEqual(0);
      expect(second.headers.get("etag")).toMatch(/^"[0-9a-f]{24}"$/);
      expect(second.headers.get("etag")).toBe(first.headers.get("etag"));
      expect(second.headers.get("x-cosmos-block-height")).toBe(first.headers.get("x-cosmos-block-height"));
      expect(await second.text()).toBe(await first.text());
      expect(await upstreamRequests(`~${gw.tags[0]}${path}`)).toBe(1);
    },
  );

  it("answers If-None-Match with 304 and no body, and a different tag with 200", async () => {
    const gw = gateway();
    const path = `/api${balances(freshAddress())}`;
    const etag = (await gw.fetch(path)).headers.get("etag")!;
    const notModified = await gw.fetch(path, { headers: { "if-none-match": etag } });
    expect(notModified.status).toBe(304);
    expect(await notModified.text()).toBe("");
    expect(notModified.headers.get("etag")).toBe(etag);
    expect(notModified.headers.get("access-control-allow-origin")).toBe("*");
    expect((await gw.fetch(path, { headers: { "if-none-match": `W/${etag}, "other"` } })).status).toBe(304);
    expect((await gw.fetch(path, { headers: { "if-none-match": '"something-else"' } })).status).toBe(200);
  });

  it("answers HEAD with the headers and no body", async () => {
    const gw = gateway();
    const response = await gw.fetch(`/api${balances(freshAddress())}`, { method: "HEAD" });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-cache")).toBe("MISS");
    expect(await response.text()).toBe("");
  });
});

describe("methods and CORS", () => {
  it("answers a preflight with 204, any origin and the gateway's methods, without asking an upstream", async () => {
    const gw = gateway();
    const response = await gw.fetch("/api/chain/incentives/v1/params", {
      method: "OPTIONS",
      headers: {
        origin: "https://app.example",
        "access-control-request-method": "GET",
        "access-control-request-headers": "if-none-match, x-cosmos-block-height",
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-allow-methods")).toBe("GET,HEAD,OPTIONS");
    expect(response.headers.get("access-control-allow-headers")).toBe("if-none-match,x-cosmos-block-height");
    expect(response.headers.get("access-control-max-age")).toBe("86400");
    expect(response.headers.get("x-cache")).toBe("BYPASS");
    expect(await upstreamRequests(`~${gw.tags[0]}`)).toBe(0);
  });

  it.each([
    ["POST", "/api/cosmos/bank/v1beta1/supply"],
    ["PUT", "/api/cosmos/bank/v1beta1/supply"],
    ["DELETE", "/api/cosmos/bank/v1beta1/supply"],
    ["PATCH", "/api/chain/incentives/v1/params"],
    // A broadcast: the gateway is read-only, whatever the path.
    ["POST", "/api/cosmos/tx/v1beta1/txs"],
  ])("refuses %s %s with 405 and Allow, without asking an upstream", async (method, path) => {
    const gw = gateway();
    const response = await gw.fetch(path, {
      method,
      body: method === "DELETE" ? undefined : '{"tx_bytes":"","mode":"BROADCAST_MODE_SYNC"}',
    });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("x-cache")).toBe("BYPASS");
    expect(await errorReason(response)).toBe("METHOD_NOT_ALLOWED");
    expect(await upstreamRequests(`~${gw.tags[0]}`)).toBe(0);
  });

  it("exposes the gateway's headers to browsers on answers and on errors", async () => {
    const gw = gateway();
    const ok = await gw.fetch("/api/chain/trustscore/v1/epoch");
    expect(ok.headers.get("access-control-expose-headers")).toContain("x-cosmos-block-height");
    const refused = await gw.fetch("/api/chain/nope");
    expect(refused.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("does not forward client cookies or authorization upstream", async () => {
    const gw = gateway(undefined, { UPSTREAM_AUTH_HEADER: "X-Provider-Key: sekrit" });
    const path = balances(freshAddress());
    await gw.fetch(`/api${path}`, {
      headers: { cookie: "session=1", authorization: "Bearer client", "x-forwarded-for": "203.0.113.9" },
    });
    const response = await fetch(
      `${(await import("./helpers")).DEVNET}/__devnet/requests?prefix=${encodeURIComponent(`~${gw.tags[0]}${path}`)}`,
    );
    const seen = (await response.json()) as { last_headers: Record<string, Record<string, string>> };
    const headers = seen.last_headers[`~${gw.tags[0]}${path}`]!;
    expect(headers["x-provider-key"]).toBe("sekrit");
    expect(headers.cookie).toBeUndefined();
    expect(headers.authorization).toBeUndefined();
    expect(headers["x-forwarded-for"]).toBeUndefined();
    expect(headers["x-cosmos-block-height"]).toBeUndefined();
  });
});

describe("upstream answers that are not plain successes", () => {
  it("passes a 4xx through and caches it briefly", async () => {
    const gw = gateway();
    const path = `/chain/incentives/v1/node/${freshAddress()}`;
    const first = await gw.fetch(`/api${path}`);
    expect(first.status).toBe(404);
    expect((await json(first)).code).toBe(5);
    await gw.settle();
    const second = await gw.fetch(`/api${path}`);
    expect(second.status).toBe(404);
    expect(second.headers.get("x-cache")).toBe("HIT");
    expect(second.headers.get("cache-control")).toMatch(/max-age=[0-5],/);
    expect(await upstreamRequests(`~${gw.tags[0]}${path}`)).toBe(1);
    advanceSeconds(6);
    expect((await gw.fetch(`/api${path}`)).headers.get("x-cache")).toBe("STALE");
  });

  it.each([
    ["an HTML page", { body: "<html>maintenance</html>" }],
    ["a JSON-looking body not served as JSON", { body: '{"balances":[]}', content_type: "text/plain" }],
  ])("turns a 2xx that is not JSON (%s) into a 502 and never caches it", async (_name, answer) => {
    const gw = gateway();
    const path = balances(freshAddress());
    await fault({ tag: gw.tags[0], prefix: path, status: 200, ...answer });
    const first = await gw.fetch(`/api${path}`);
    expect(first.status).toBe(502);
    expect(await errorReason(first)).toBe("UPSTREAM_UNAVAILABLE");
    await gw.settle();
    const second = await gw.fetch(`/api${path}`);
    expect(second.status).toBe(502);
    expect(await upstreamRequests(`~${gw.tags[0]}${path}`)).toBe(2);
  });
});

describe("stale-while-revalidate and stale-if-error", () => {
  it("serves an entry just past its TTL at once as STALE and refreshes it once in the background", async () => {
    const gw = gateway();
    const path = balances(freshAddress());
    const key = `~${gw.tags[0]}${path}`;
    await gw.fetch(`/api${path}`);
    await gw.settle();
    advanceSeconds(10); // TTL 5 s, SWR window 60 s
    const stale = await Promise.all([gw.fetch(`/api${path}`), gw.fetch(`/api${path}`), gw.fetch(`/api${path}`)]);
    expect(stale.map((r) => r.headers.get("x-cache"))).toEqual(["STALE", "STALE", "STALE"]);
    expect(stale[0]!.headers.get("cache-control")).toMatch(/^public, max-age=0,/);
    expect(Number(stale[0]!.headers.get("age"))).toBeGreaterThanOrEqual(10);
    await gw.settle();
    expect(await upstreamRequests(key)).toBe(2);
    const refreshed = await gw.fetch(`/api${path}`);
    expect(refreshed.headers.get("x-cache")).toBe("HIT");
    expect(Number(refreshed.headers.get("age"))).toBeLessThan(10);
  });

  it("waits for the upstream once an entry is past the SWR window", async () => {
    const gw = gateway();
    const path = balances(freshAddress());
    await gw.fetch(`/api${path}`);
    await gw.settle();
    advanceSeconds(5 + 61);
    expect((await gw.fetch(`/api${path}`)).headers.get("x-cache")).toBe("MISS");
    expect(await upstreamRequests(`~${gw.tags[0]}${path}`)).toBe(2);
  });

  it.each([
    ["fails", { status: 503 }],
    ["times out", { delay_ms: NEVER_MS }],
  ])("serves the stale entry when every upstream %s", async (_name, spec) => {
    // The first answer is fresh from an upstream within the suite's 1 s timeout, which a loaded machine keeps.
    const gw = gateway([tag(), tag()]);
    const path = balances(freshAddress());
    const fresh = await gw.fetch(`/api${path}`);
    const body = await fresh.text();
    await gw.settle();
    await fault({ prefix: path, ...spec });
    advanceSeconds(3600);
    const stale = await gw.fetch(`/api${path}`);
    expect(stale.status).toBe(200);
    expect(stale.headers.get("x-cache")).toBe("STALE-IF-ERROR");
    expect(await stale.text()).toBe(body);
  });

  it(
    "has the Cache API keep an entry past TTL and SWR for the stale-if-error window (in real time, as the platform " +
      "counts it)",
    async () => {
      // A transaction not found yet is fresh for 1 s; with no SWR window, only the keep time can still hold it 2 s
      // later.
      const gw = gateway([tag()], { CACHE_SWR_SECONDS: "0" });
      const middle = crypto.randomUUID().replaceAll("-", "").toUpperCase();
      const path = `/cosmos/tx/v1beta1/txs/${"C".repeat(8)}${middle}${"D".repeat(24)}`;
      const first = await gw.fetch(`/api${path}`);
      expect(first.status).toBe(404);
      const body = await first.text();
      await gw.settle();
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      await fault({ tag: gw.tags[0], prefix: path, status: 503 });
      const stale = await gw.fetch(`/api${path}`);
      expect([stale.status, stale.headers.get("x-cache")]).toEqual([404, "STALE-IF-ERROR"]);
      expect(await stale.text()).toBe(body);
    },
  );

  it("answers 502 when every upstream fails and nothing is cached", async () => {
    const gw = gateway();
    const path = balances(freshAddress());
    await fault({ tag: gw.tags[0], prefix: path, status: 500 });
    const response = await gw.fetch(`/api${path}`);
    expect(response.status).toBe(502);
    expect(await json(response)).toMatchObject({
      code: 14,
      message: expect.stringContaining("upstream #1 answered 500"),
    });
    expect(response.headers.get("x-cache")).toBe("MISS");
    expect(response.headers.get("cache-control")).toBe("no-store");
  });
});

describe("request coalescing", () => {
  it("sends 100 concurrent misses for one key upstream exactly once", async () => {
    const gw = gateway();
    const path = `/cosmos/bank/v1beta1/supply?pagination.key=${freshPageKey()}`;
    // A slow upstream keeps all 100 requests in flight together.
    await fault({ tag: gw.tags[0], prefix: path.split("?")[0], delay_ms: 300 });
    const responses = await Promise.all(Array.from({ length: 100 }, () => gw.fetch(`/api${path}`)));
    expect(responses.map((r) => r.status)).toEqual(Array(100).fill(200));
    const bodies = new Set(await Promise.all(responses.map((r) => r.text())));
    expect(bodies.size).toBe(1);
    expect(await upstreamRequests(`~${gw.tags[0]}/cosmos/bank/v1beta1/supply`)).toBe(1);
  });

  it("shares one upstream failure among concurrent misses too", async () => {
    const gw = gateway();
    const path = balances(freshAddress());
    await fault({ tag: gw.tags[0], prefix: path, status: 500, delay_ms: 200 });
    const responses = await Promise.all(Array.from({ length: 20 }, () => gw.fetch(`/api${path}`)));
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(502));
    expect(await upstreamRequests(`~${gw.tags[0]}${path}`)).toBe(1);
  });
});

describe("the isolate's memory", () => {
  /** Status, headers and body, with what differs by nature between two requests left out (request id, timings). */
  async function comparable(response: Response) {
    const headers = Object.fromEntries([...response.headers].filter(([name]) => name !== "x-request-id"));
    headers["server-timing"] = headers["server-timing"]!.replace(/dur=[\d.]+/g, "dur=…");
    return { status: response.status, headers, body: await response.text() };
  }

  it(
    "answers a request in canonical form exactly as the Cache API tier does, Age and Cache-Control brought up to " +
      "date",
    async () => {
      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime(Date.now());
      const gw = gateway();
      const path = `/api${balances(freshAddress())}`;
      const canonical = `${path}?pagination.limit=5&pagination.reverse=true`;
      expect((await gw.fetch(canonical)).headers.get("x-cache")).toBe("MISS");
      // Another spelling of the same query is validated and served from the Cache API.
      const fromCacheApi = await comparable(await gw.fetch(`${path}?pagination.reverse=true&pagination.limit=5`));
      const fromMemory = await comparable(await gw.fetch(canonical));
      expect(fromCacheApi.headers["x-cache"]).toBe("HIT");
      expect(fromMemory).toEqual(fromCacheApi);
      expect(Object.keys(fromMemory.headers).sort()).toEqual([
        "access-control-allow-origin",
        "access-control-expose-headers",
        "age",
        "cache-control",
        "content-type",
        "etag",
        "server-timing",
        "timing-allow-origin",
        "x-cache",
        "x-cosmos-block-height",
      ]);

      vi.setSystemTime(Date.now() + 2_000);
      const later = await gw.fetch(canonical);
      expect([later.headers.get("x-cache"), later.headers.get("age")]).toEqual(["HIT", "2"]);
      expect(later.headers.get("cache-control")).toMatch(/^public, max-age=3, /);
      expect(later.headers.get("etag")).toBe(fromMemory.headers.etag);
      expect(await upstreamRequests(`~${gw.tags[0]}${path.slice("/api".length)}`)).toBe(1);
    },
  );
});

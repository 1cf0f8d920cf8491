/**
 * The shield tier through the Worker: one upstream request per key for every data center, the
 * height rule, SWR and stale-if-error served by the shield, and failing open. A data center here
 * is an origin of its own: the cache key, the isolate memory and the coalescing all carry it,
 * while every origin shares the one shield namespace, as every city does.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { readConfig } from "../../src/config";
import { shieldName } from "../../src/gateway/shield/protocol";
import { resetServedHeight } from "../../src/gateway/served-height";
import { errorReason } from "../helpers/sessions";
import {
  NEVER_MS,
  NODES,
  deployment,
  fault,
  freshAddress,
  gateway,
  json,
  lastUpstreamHeaders,
  nodeRequests,
  tag,
  upstreamRequests,
  type Gateway,
} from "./helpers";

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const balances = () => `/cosmos/bank/v1beta1/balances/${freshAddress()}`;

/**
 * `n` data centers of the deployment: its upstreams (`NODES`, which its shields read from the configuration too) and
 * its shield namespace.
 */
function cities(n: number): Gateway[] {
  return Array.from({ length: n }, (_, i) =>
    deployment({ origin: `https://city-${i}-${crypto.randomUUID().slice(0, 6)}.test` }),
  );
}

/** `n` data centers asking upstreams of their own (`tags`) directly, with `vars`. */
function citiesOnTheirOwn(n: number, tags: string[], vars: Record<string, string>): Gateway[] {
  return Array.from({ length: n }, (_, i) =>
    gateway(tags, vars, { origin: `https://city-${i}-${crypto.randomUUID().slice(0, 6)}.test` }),
  );
}

function advanceSeconds(seconds: number): void {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(Date.now() + seconds * 1000);
}

const shieldOf = (path: string) =>
  env.QUERY_SHIELDS.getByName(shieldName(readConfig(env).chainId, { upstreamPath: path, height: null }));
const shieldTiming = (response: Response) =>
  /(?:^|,)\s*shield;(?:dur=[\d.]+;)?desc="([^"]+)"/.exec(response.headers.get("server-timing") ?? "")?.[1] ?? null;
const height = (response: Response) => Number(response.headers.get("x-cosmos-block-height"));

describe("one upstream request per key for every data center", () => {
  it("sends 5 data centers × 20 concurrent cold requests upstream once, every answer at the same height", async () => {
    const all = cities(5);
    const path = balances();
    // A slow upstream keeps every request of every city in flight together.
    await fault({ prefix: path, delay_ms: 300 });
    const responses = await Promise.all(
      all.flatMap((city) => Array.from({ length: 20 }, () => city.fetch(`/api${path}`))),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(100).fill(200));
    expect(new Set(responses.map((r) => r.headers.get("x-cache")))).toEqual(new Set(["MISS"]));
    expect(new Set(responses.map(height)).size).toBe(1);
    // Every city's miss joined the shield's one upstream round.
    expect(new Set(responses.map(shieldTiming))).toEqual(new Set(["MISS"]));
    expect(await nodeRequests(path)).toBe(1);
  });

  it("lets each data center ask the upstream itself when CACHE_SHIELD is off", async () => {
    const t = tag();
    const all = citiesOnTheirOwn(5, [t], { CACHE_SHIELD: "off" });
    const path = balances();
    await fault({ tag: t, prefix: path, delay_ms: 300 });
    const responses = await Promise.all(
      all.flatMap((city) => Array.from({ length: 20 }, () => city.fetch(`/api${path}`))),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(100).fill(200));
    expect(responses.map(shieldTiming)).toEqual(Array(100).fill(null));
    expect(await upstreamRequests(`~${t}${path}`)).toBe(5);
  });

  it("answers a second data center's miss from the shield; a hit or a refusal never touches the shield", async () => {
    let shieldCalls = 0;
    const counted = {
      getByName: (...args: Parameters<typeof env.QUERY_SHIELDS.getByName>) => {
        shieldCalls++;
        return env.QUERY_SHIELDS.getByName(...args);
      },
    } as unknown as typeof env.QUERY_SHIELDS;
    const [a, b] = [0, 1].map((i) =>
      deployment({
        origin: `https://counted-${i}-${crypto.randomUUID().slice(0, 6)}.test`,
        bindings: { QUERY_SHIELDS: counted },
      }),
    ) as [Gateway, Gateway];
    const path = balances();
    const missed = await a.fetch(`/api${path}`);
    expect([missed.headers.get("x-cache"), shieldTiming(missed)]).toEqual(["MISS", "MISS"]);
    await a.settle();
    const fromShield = await b.fetch(`/api${path}`);
    expect([fromShield.headers.get("x-cache"), shieldTiming(fromShield)]).toEqual(["MISS", "HIT"]);
    expect(await fromShield.text()).toBe(await missed.text());
    await b.settle();
    expect(shieldCalls).toBe(2);
    for (const city of [a, b, a, b]) {
      const hit = await city.fetch(`/api${path}`);
      expect([hit.headers.get("x-cache"), shieldTiming(hit)]).toEqual(["HIT", null]);
    }
    expect(shieldCalls).toBe(2);
    expect(await nodeRequests(path)).toBe(1);
    // Refusals are made before any tier: no shield is addressed for them.
    for (const refused of [
      "/api/cosmos/bank/v1beta1/balances/not-an-address",
      "/api/cosmos/bank/v1beta1/supply?limit=5",
    ]) {
      expect((await a.fetch(refused)).status).toBe(400);
    }
    expect((await a.fetch(`/api${path}`, { method: "POST" })).status).toBe(405);
    expect(shieldCalls).toBe(2);
  });
});

describe("what the shield serves", () => {
  it(
    "never lets a lagging node take a key back in time, for a data center that never saw the higher answer " + "either",
    async () => {
      const [a, b] = cities(2);
      const path = balances();
      const first = await a!.fetch(`/api${path}`);
      const body = await first.text();
      await a!.settle();
      await fault({ prefix: path, height_offset: -50 });
      advanceSeconds(120); // past TTL and SWR: the shield waits for the lagging node
      resetServedHeight(); // b's isolate served nothing: only the key's own rule holds it
      const lagging = await b!.fetch(`/api${path}`);
      expect(lagging.headers.get("x-cache")).toBe("REVALIDATED");
      expect(shieldTiming(lagging)).toBe("REVALIDATED");
      expect(height(lagging)).toBe(height(first));
      expect(await lagging.text()).toBe(body);
      expect(await nodeRequests(path)).toBe(2);
    },
  );

  it("serves its entry within the SWR window at once, refreshing it upstream once for every data center", async () => {
    const [a, ...others] = cities(4);
    const path = balances();
    await a!.fetch(`/api${path}`);
    await a!.settle();
    advanceSeconds(10); // TTL 5 s, SWR window 60 s
    const stale = await Promise.all(others.map((city) => city.fetch(`/api${path}`)));
    expect(stale.map((r) => [r.headers.get("x-cache"), shieldTiming(r)])).toEqual(Array(3).fill(["STALE", "STALE"]));
    expect(Number(stale[0]!.headers.get("age"))).toBeGreaterThanOrEqual(10);
    // Each of those cities now refreshes its stale copy in the background: they wait for the shield's one round.
    const again = await Promise.all(others.map((city) => city.fetch(`/api${path}`)));
    expect(again.map((r) => r.headers.get("x-cache"))).toEqual(["STALE", "STALE", "STALE"]);
    await Promise.all(others.map((city) => city.settle()));
    // One round for the three: the first request and one refresh. A round may ask a second node (a hedge when a
    // loaded machine keeps the first past its delay, or a node measured alongside), never a round per data center
    // (4 or more).
    const requests = await nodeRequests(path);
    expect(requests).toBeGreaterThanOrEqual(2);
    expect(requests).toBeLessThanOrEqual(3);
    const refreshed = await Promise.all(others.map((city) => city.fetch(`/api${path}`)));
    expect(refreshed.map((r) => r.headers.get("x-cache"))).toEqual(["HIT", "HIT", "HIT"]);
    expect(Number(refreshed[0]!.headers.get("age"))).toBeLessThan(10);
  });

  it.each([
    ["fails", { status: 503 }],
    ["times out", { delay_ms: NEVER_MS }],
  ])(
    "stands in with its entry for a data center that has none when every upstream %s (stale-if-error)",
    async (_name, spec) => {
      const [a, b] = cities(2);
      const path = balances();
      const body = await (await a!.fetch(`/api${path}`)).text();
      await a!.settle();
      await fault({ prefix: path, ...spec });
      advanceSeconds(3600);
      const stale = await b!.fetch(`/api${path}`);
      expect(stale.status).toBe(200);
      expect([stale.headers.get("x-cache"), shieldTiming(stale)]).toEqual(["STALE-IF-ERROR", "STALE-IF-ERROR"]);
      expect(await stale.text()).toBe(body);
    },
  );

  it(
    "passes the upstreams' failure on when it has nothing to stand in, and the Worker adds no request of " + "its own",
    async () => {
      const [a] = cities(1);
      const path = balances();
      await fault({ prefix: path, status: 500 });
      const response = await a!.fetch(`/api${path}`);
      expect(response.status).toBe(502);
      expect(response.headers.get("x-cache")).toBe("MISS");
      expect(await json(response)).toMatchObject({
        code: 14,
        message: expect.stringContaining("upstream #1 answered 500"),
      });
      // One round of the shield: each node once.
      expect(await nodeRequests(path)).toBe(NODES.length);
    },
  );
});

describe("historical reads", () => {
  it(
    "give a past height a shield of its own, shared by every data center, with the height " + "forwarded once",
    async () => {
      const [a, b] = cities(2);
      const path = balances();
      const latest = await a!.fetch(`/api${path}`);
      const past = String(height(latest) - 1);
      const atPast = { headers: { "x-cosmos-block-height": past } };
      const first = await a!.fetch(`/api${path}`, atPast);
      const second = await b!.fetch(`/api${path}`, atPast);
      expect([first.headers.get("x-cosmos-block-height"), second.headers.get("x-cosmos-block-height")]).toEqual([
        past,
        past,
      ]);
      expect([shieldTiming(first), shieldTiming(second)]).toEqual(["MISS", "HIT"]);
      const heightsAsked = await Promise.all(
        NODES.map(async (node) => (await lastUpstreamHeaders(`~${node}${path}`))["x-cosmos-block-height"]),
      );
      expect(heightsAsked).toContain(past);
      // One request for the latest state, one for the past height, whatever the number of cities.
      expect(await nodeRequests(path)).toBe(2);
      expect(height(await b!.fetch(`/api${path}`))).toBe(height(latest));
    },
  );
});

describe("fail open", () => {
  /** A shield namespace whose every stub answers `ask` with `reply`. */
  const shieldsThat = (reply: () => Promise<unknown>) =>
    ({ getByName: () => ({ ask: reply }) }) as unknown as typeof env.QUERY_SHIELDS;
  const never = () => new Promise<never>(() => undefined);

  it.each([
    ["cannot be reached", shieldsThat(() => Promise.reject(new Error("Network connection lost."))), {}],
    ["throws", shieldsThat(() => Promise.reject(new Error("Durable Object reset because its code was updated."))), {}],
    ["does not take the miss within CACHE_SHIELD_WAIT_MS", shieldsThat(never), { CACHE_SHIELD_WAIT_MS: "20" }],
    [
      "takes the miss but gives no answer within the upstream budget",
      shieldsThat(async () => ({ later: new ReadableStream() })),
      // The budget bounds the Worker's own ask after it too: the suite's 2.5 s, which a loaded machine keeps
      // (60 ms, the shortest wait, made the direct ask a 504 under load).
      { CACHE_SHIELD_WAIT_MS: "20", UPSTREAM_BUDGET_MS: "2500" },
    ],
    [
      "breaks off its answer",
      shieldsThat(async () => ({ later: new ReadableStream({ start: (c) => c.error(new Error("broken")) }) })),
      {},
    ],
  ])(
    "asks the upstream directly when the shield %s, and says so in X-Cache and the log",
    async (_name, shields, vars) => {
      const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
      const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
      const gw = gateway([tag()], { CACHE_SHIELD: "on", ...vars }, { bindings: { QUERY_SHIELDS: shields } });
      const path = balances();
      const response = await gw.fetch(`/api${path}`);
      expect(response.status).toBe(200);
      expect((await json(response)).balances).toBeDefined();
      expect(response.headers.get("x-cache")).toBe("MISS, SHIELD-FAIL-OPEN");
      expect(shieldTiming(response)).toBe("fail-open");
      expect(await upstreamRequests(`~${gw.tags[0]}${path}`)).toBe(1);
      const warned = warn.mock.calls.map(([line]) => JSON.parse(String(line)) as Record<string, unknown>);
      expect(warned).toContainEqual(
        expect.objectContaining({
          level: "warn",
          event: "shield_fail_open",
          request_id: response.headers.get("x-request-id"),
          path,
          fault: expect.any(String),
        }),
      );
      const accessLog = log.mock.calls.map(([line]) => JSON.parse(String(line)) as Record<string, unknown>);
      expect(accessLog).toContainEqual(
        expect.objectContaining({ path: `/api${path}`, status: 200, cache: "MISS", shield: "fail-open" }),
      );
    },
  );

  it(
    "still serves the data center's stale copy, or the upstreams' own error, when the direct request fails too, " +
      "and says so",
    async () => {
      vi.spyOn(console, "warn").mockImplementation(() => undefined);
      const broken = shieldsThat(() => Promise.reject(new Error("Network connection lost.")));
      const gw = gateway([tag()], { CACHE_SHIELD: "on" }, { bindings: { QUERY_SHIELDS: broken } });
      const t = gw.tags[0]!;
      const path = balances();
      await gw.fetch(`/api${path}`);
      await gw.settle();
      await fault({ tag: t, status: 503 });
      advanceSeconds(3600);
      const stale = await gw.fetch(`/api${path}`);
      expect([stale.status, stale.headers.get("x-cache")]).toEqual([200, "STALE-IF-ERROR, SHIELD-FAIL-OPEN"]);
      const nothing = await gw.fetch(`/api${balances()}`);
      expect(nothing.status).toBe(502);
      expect(await errorReason(nothing)).toBe("UPSTREAM_UNAVAILABLE");
      expect(nothing.headers.get("x-cache")).toBe("MISS, SHIELD-FAIL-OPEN");
    },
  );
});

describe("the shield's storage", () => {
  it(
    "keeps its entry durably for TTL + the longer of SWR and stale-if-error, and deletes it by alarm once no " +
      "window can serve it",
    async () => {
      const [a] = cities(1);
      const path = balances();
      await a!.fetch(`/api${path}`);
      const stub = shieldOf(path);
      const kept = await runInDurableObject(stub, async (_shield, state) => ({
        kept: await state.storage.get("kept"),
        alarm: await state.storage.getAlarm(),
      }));
      expect(kept.kept).toMatchObject({ entry: { status: 200, ttl: 5 } });
      // 5 s of TTL and the day of stale-if-error (longer than the minute of SWR).
      expect(kept.alarm).toBeGreaterThan(Date.now() + 86_000_000);
      expect(await runDurableObjectAlarm(stub)).toBe(true); // early: looks again later, keeps the entry
      expect(await runInDurableObject(stub, (_shield, state) => state.storage.get("kept"))).toBeDefined();
      advanceSeconds(2 * 86_400);
      expect(await runDurableObjectAlarm(stub)).toBe(true);
      expect(
        await runInDurableObject(stub, async (_shield, state) => [
          await state.storage.get("kept"),
          await state.storage.getAlarm(),
        ]),
      ).toEqual([undefined, null]);
      const [b] = cities(1);
      expect(shieldTiming(await b!.fetch(`/api${path}`))).toBe("MISS");
      expect(await nodeRequests(path)).toBe(2);
    },
  );
});

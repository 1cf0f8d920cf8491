/**
 * Which node a miss asks (docs/GATEWAY.md, "Node choice"): the best score in the isolate, a hedge
 * when the chosen node is slow, a node's Retry-After kept, a not-found final at the top, and every
 * miss naming its node. Nodes are devnet mounts with set delays and faults (devnet/faults.ts);
 * requests are counted per node, never timed. The board's own rules are read with its `now`.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { readConfig } from "../../src/config";
import { UpstreamBoard } from "../../src/gateway/upstream-board";
import { askUpstreams, retryAfterMs } from "../../src/gateway/upstreams";
import { errorReason } from "../helpers/sessions";
import { DEVNET, NEVER_MS, fault, freshAddress, gateway, json, tag, upstreamRequests, type Gateway } from "./helpers";

afterEach(() => vi.useRealTimers());

const balances = () => `/cosmos/bank/v1beta1/balances/${freshAddress()}`;
const count = (t: string, path = "") => upstreamRequests(`~${t}${path}`);
const ownOrigin = () => ({ origin: `https://${tag()}.edge.test` });
/** Two nodes of one face, for the board's own rules. */
const peers = ["https://a", "https://b"];

describe("nodes chosen by what they measure", () => {
  it("sends a 400 ms node listed first at most 10% of 20 misses when a 20 ms node is listed second", async () => {
    const [slow, fast] = [tag(), tag()];
    const gw = gateway([slow, fast], {}, ownOrigin());
    await fault({ tag: slow, delay_ms: 400 });
    await fault({ tag: fast, delay_ms: 20 });
    for (let i = 0; i < 20; i++) expect((await gw.fetch(`/api${balances()}`)).status).toBe(200);
    const [toSlow, toFast] = [await count(slow), await count(fast)];
    // Each miss asked one node, or two when a hedge went out (a loaded machine can make 400 ms look like more).
    expect(toSlow + toFast).toBeGreaterThanOrEqual(20);
    expect(toSlow + toFast).toBeLessThanOrEqual(22);
    expect(toSlow).toBeLessThanOrEqual(20 * 0.1);
  });

  it("asks in the configured order before anything is measured, and between nodes alike", async () => {
    const [a, b] = [tag(), tag()];
    const gw = gateway([a, b], {}, ownOrigin());
    for (let i = 0; i < 5; i++) expect((await gw.fetch(`/api${balances()}`)).status).toBe(200);
    expect([await count(a), await count(b)]).toEqual([5, 0]);
  });

  /** a reports `height` just after b reported 1050. */
  const aAt = (height: number, t0: number) => {
    const b = new UpstreamBoard();
    b.record("https://b", { status: 200, ms: 10, height: 1050, peers }, 0, t0);
    b.record("https://a", { status: 200, ms: 10, height, peers }, 0, t0);
    return b;
  };

  it("asks a node more than 2 blocks behind the best recent height after the nodes in step", () => {
    const t0 = 1_000_000;
    expect(aAt(1000, t0).order(peers, t0)).toEqual(["https://b", "https://a"]);
    expect(aAt(1048, t0).order(peers, t0)).toEqual(["https://a", "https://b"]);
    expect(aAt(1047, t0).order(peers, t0)).toEqual(["https://b", "https://a"]);
    expect(aAt(1047, t0).figures("https://a", t0).behind).toBe(3);
  });

  it("does not count a node behind forever: a height older than a minute judges nothing", () => {
    const t0 = 1_000_000;
    const b = aAt(1000, t0);
    // b keeps answering, a is not asked: a's height is a minute old and no longer says it is behind.
    b.record("https://b", { status: 200, ms: 10, height: 1080, peers }, 0, t0 + 59_000);
    expect(b.order(peers, t0 + 59_000)).toEqual(["https://b", "https://a"]);
    b.record("https://b", { status: 200, ms: 10, height: 1081, peers }, 0, t0 + 60_000);
    expect(b.order(peers, t0 + 60_000)).toEqual(["https://a", "https://b"]);
    expect(b.figures("https://a", t0 + 60_000).behind).toBeNull();
  });

  it("judges a node's lag when it reports: one not asked while the chain moves on is not behind", () => {
    const t0 = 1_000_000;
    const b = new UpstreamBoard();
    b.record("https://a", { status: 200, ms: 10, height: 1000, peers }, 0, t0);
    b.record("https://b", { status: 200, ms: 10, height: 1000, peers }, 0, t0);
    // b answers for 20 s (a block a second) while a, level when it last answered, is not asked.
    b.record("https://b", { status: 200, ms: 10, height: 1020, peers }, 0, t0 + 20_000);
    expect(b.order(peers, t0 + 20_000)).toEqual(["https://a", "https://b"]);
    expect(b.figures("https://a", t0 + 20_000).behind).toBe(0);
    expect(b.view(peers, t0 + 20_000)[0]).toMatchObject({ state: "serving", behind: 0 });
    expect(b.atTop("https://a", t0 + 20_000)).toBe(true);
  });

  it("takes a not-found as final only from a node level with its face when it last reported", () => {
    const t0 = 1_000_000;
    const b = aAt(1049, t0);
    expect(b.atTop("https://b", t0)).toBe(true);
    expect(b.atTop("https://a", t0)).toBe(false); // one block behind
    expect(b.atTop("https://c", t0)).toBe(false); // no height of its own
    expect(b.atTop("https://b", t0 + 60_000)).toBe(false); // its height is a minute old
  });

  it("counts a node behind when another reports more than 2 blocks above it within a second after", () => {
    const t0 = 1_000_000;
    for (const [after, behind] of [
      [1_000, true],
      [1_001, false],
    ] as const) {
      const b = new UpstreamBoard();
      b.record("https://a", { status: 200, ms: 10, height: 1000, peers }, 0, t0);
      b.record("https://b", { status: 200, ms: 10, height: 1003, peers }, 0, t0 + after);
      expect(b.order(peers, t0 + after)).toEqual(behind ? ["https://b", "https://a"] : peers);
    }
    const level = new UpstreamBoard();
    level.record("https://a", { status: 200, ms: 10, height: 1000, peers }, 0, t0);
    level.record("https://b", { status: 200, ms: 10, height: 1002, peers }, 0, t0 + 500);
    expect(level.order(peers, t0 + 500)).toEqual(peers);
  });

  it("counts a request still out as at least as slow as it has been out", () => {
    const b = new UpstreamBoard();
    b.record("https://a", { status: 200, ms: 20 }, 0, 0);
    b.record("https://b", { status: 200, ms: 20 }, 0, 0);
    b.begin("https://a", 1000);
    expect(b.order(peers, 1099)).toEqual(["https://a", "https://b"]);
    expect(b.order(peers, 1100)).toEqual(["https://b", "https://a"]);
    b.end("https://a", 1000);
    expect(b.order(peers, 1100)).toEqual(["https://a", "https://b"]);
  });

  it("restarts a node's average with its first answer after 10 s without one", () => {
    const b = new UpstreamBoard();
    b.record("https://a", { status: null, ms: 4000, error: "no answer within 4000 ms" }, 0, 0);
    b.record("https://b", { status: 200, ms: 20 }, 0, 0);
    const again = new UpstreamBoard();
    for (const board of [b, again]) board.record("https://b", { status: 200, ms: 20 }, 0, 10_000);
    again.record("https://a", { status: null, ms: 4000, error: "no answer within 4000 ms" }, 0, 1);
    b.record("https://a", { status: 200, ms: 20 }, 0, 10_000);
    again.record("https://a", { status: 200, ms: 20 }, 0, 10_000);
    expect(b.order(peers, 10_000)).toEqual(["https://a", "https://b"]);
    expect(again.order(peers, 10_000)).toEqual(["https://b", "https://a"]);
    // Its percentiles restart too: the hedge delay is drawn from the answer, not the hang before it.
    expect(b.hedgeDelay("https://a", 10_000)).toBe(150);
    expect(again.hedgeDelay("https://a", 10_000)).toBe(1000);
  });

  it("asks a node its measures put after the first alongside it, once it was not asked for 10 s", () => {
    const b = new UpstreamBoard();
    b.record("https://a", { status: 200, ms: 20 }, 0, 0);
    b.record("https://b", { status: 200, ms: 20 }, 0, 0);
    expect(b.explorer(peers, 0)).toBeNull();
    expect(b.explorer(peers, 20_000)).toBeNull(); // b is as good as a, merely listed after it
    b.record("https://b", { status: 200, ms: 400 }, 0, 20_000);
    b.begin("https://b", 20_000);
    b.end("https://b", 20_000);
    expect(b.explorer(peers, 29_999)).toBeNull();
    expect(b.explorer(peers, 30_000)).toBe("https://b");
    b.begin("https://b", 30_000);
    expect(b.explorer(peers, 30_001)).toBeNull();
    const three = ["https://a", "https://b", "https://c"];
    b.begin("https://c", 30_001);
    b.record("https://c", { status: 500, ms: 5, error: "answered 500" }, 60_000, 30_001);
    b.end("https://c", 30_001);
    // c failed (skipped for a minute); b, asked a millisecond before it, is due first.
    expect(b.explorer(three, 40_000)).toBe("https://b");
    b.begin("https://b", 40_000);
    expect(b.explorer(three, 40_001)).toBe("https://c");
  });

  it("counts a hang as slow: a node that timed out is asked after one that answers", () => {
    const b = new UpstreamBoard();
    b.record("https://a", { status: null, ms: 4000, error: "no answer within 4000 ms" }, 0, 1000);
    b.record("https://b", { status: 200, ms: 20 }, 0, 1000);
    expect(b.order(["https://a", "https://b"], 2000)).toEqual(["https://b", "https://a"]);
  });
});

describe("a node measured again", () => {
  it("moves misses off a node while its request hangs, before the timeout says so", async () => {
    const [a, b] = [tag(), tag()];
    const gw = gateway([a, b], {}, ownOrigin());
    expect((await gw.fetch(`/api${balances()}`)).status).toBe(200); // a answers: measured fast
    const hung = balances();
    await fault({ tag: a, prefix: hung, delay_ms: NEVER_MS });
    const first = gw.fetch(`/api${hung}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const path = balances();
    expect((await gw.fetch(`/api${path}`)).status).toBe(200);
    expect([await count(a, path), await count(b, path)]).toEqual([0, 1]);
    expect((await first).status).toBe(200); // the hang itself was hedged to b
  });

  it("asks a node left out for 10 s alongside the first, and puts it back when it answers", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const [a, b] = [tag(), tag()];
    const gw = gateway([a, b], { UPSTREAM_COOLDOWN_MS: "60000" }, ownOrigin());
    await fault({ tag: a, status: 500, times: 1 });
    for (let i = 0; i < 3; i++) expect((await gw.fetch(`/api${balances()}`)).status).toBe(200);
    expect([await count(a), await count(b)]).toEqual([1, 3]); // a failed once: skipped for a minute
    vi.setSystemTime(Date.now() + 9_000);
    expect((await gw.fetch(`/api${balances()}`)).headers.get("x-edge-attempts")).toBe("1");
    vi.setSystemTime(Date.now() + 1_000);
    const alongside = await gw.fetch(`/api${balances()}`);
    expect(alongside.headers.get("x-edge-attempts")).toBe("2");
    await gw.settle();
    expect([await count(a), await count(b)]).toEqual([2, 5]);
    // Its answer ended the skip: a, listed first and as fast, is first again.
    expect((await gw.fetch(`/api${balances()}`)).status).toBe(200);
    expect([await count(a), await count(b)]).toEqual([3, 5]);
  });

  it("measures a node alongside only in a round that can let its request run on", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const [a, b] = [tag(), tag()];
    const urls = [a, b].map((t) => `${DEVNET}/~${t}`).join(",");
    const settings = readConfig({ ...env, UPSTREAM_URLS: urls, UPSTREAM_COOLDOWN_MS: "60000" });
    const board = new UpstreamBoard();
    const latest = () => ({ upstreamPath: balances(), height: null });
    await fault({ tag: a, status: 500, times: 1 });
    expect((await askUpstreams(settings, latest(), board)).attempts).toBe(2); // a failed: skipped for a minute
    vi.setSystemTime(Date.now() + 10_000);
    // Nowhere to run on (an onboarding check, the chain follower): a's request would be cut and measured as slow.
    expect((await askUpstreams(settings, latest(), board)).attempts).toBe(1);
    const running: Promise<unknown>[] = [];
    expect((await askUpstreams(settings, latest(), board, (work) => running.push(work))).attempts).toBe(2);
    await Promise.all(running);
    expect([await count(a), await count(b)]).toEqual([2, 3]);
  });
});

describe("tails cut by a hedge", () => {
  it("asks the next node when the first hangs, within the budget a hang alone would spend", async () => {
    const [a, b] = [tag(), tag()];
    // Without a hedge, the hang would spend the whole budget on a and answer 504.
    const gw = gateway([a, b], { UPSTREAM_TIMEOUT_MS: "1000", UPSTREAM_BUDGET_MS: "1000" }, ownOrigin());
    expect((await gw.fetch(`/api${balances()}`)).status).toBe(200); // a answers: measured fast
    for (let i = 0; i < 6; i++) {
      const path = balances();
      if (i % 3 === 0) await fault({ tag: a, prefix: path, delay_ms: NEVER_MS });
      const response = await gw.fetch(`/api${path}`);
      expect(response.status).toBe(200);
      // The abandoned request runs on to its timeout, to be measured.
      await gw.settle();
    }
    // The one hang was cut by a hedge to b; from then on a's score (the hang measured as slow) sends misses to b.
    // (On a loaded machine a's first answer may itself draw a hedge, and a its one probe more.)
    expect(await count(a)).toBeGreaterThanOrEqual(2);
    expect(await count(a)).toBeLessThanOrEqual(3);
    expect(await count(b)).toBeGreaterThanOrEqual(6);
  });

  it("reads the hedge delay again while waiting: a hang on a node measured meanwhile is cut", async () => {
    const [a, b] = [tag(), tag()];
    // a is unmeasured: its hedge delay is 1 s, the whole budget, unless the delay is read again.
    const gw = gateway([a, b], { UPSTREAM_TIMEOUT_MS: "1000", UPSTREAM_BUDGET_MS: "1000" }, ownOrigin());
    const hung = balances();
    await fault({ tag: a, prefix: hung, delay_ms: NEVER_MS });
    const first = gw.fetch(`/api${hung}`);
    // Another round (a's only node is a) measures a fast meanwhile: its delay drops to 150 ms.
    expect((await gateway([a], {}, ownOrigin()).fetch(`/api${balances()}`)).status).toBe(200);
    const response = await first;
    expect(response.status).toBe(200);
    expect(await count(b, hung)).toBe(1);
    await gw.settle();
  });

  it("hedges at most once per miss: a third node is asked only after both fail", async () => {
    const [a, b, c] = [tag(), tag(), tag()];
    const gw = gateway([a, b, c], { UPSTREAM_TIMEOUT_MS: "10000", UPSTREAM_BUDGET_MS: "10000" }, ownOrigin());
    const path = balances();
    await fault({ tag: a, prefix: path, delay_ms: 300, status: 500 });
    await fault({ tag: b, prefix: path, delay_ms: 300, status: 500 });
    expect((await gw.fetch(`/api${path}`)).headers.get("x-edge-attempts")).toBe("3");
    expect([await count(a, path), await count(b, path), await count(c, path)]).toEqual([1, 1, 1]);
  });

  it("sends one hedge, not two: with the first two nodes hanging, the third is not asked in time", async () => {
    const [a, b, c] = [tag(), tag(), tag()];
    const gw = gateway([a, b, c], { UPSTREAM_TIMEOUT_MS: "1000", UPSTREAM_BUDGET_MS: "1000" }, ownOrigin());
    expect((await gw.fetch(`/api${balances()}`)).status).toBe(200); // a answers: measured fast
    const path = balances();
    await fault({ tag: a, prefix: path, delay_ms: NEVER_MS });
    await fault({ tag: b, prefix: path, delay_ms: NEVER_MS });
    expect((await gw.fetch(`/api${path}`)).status).toBe(504);
    expect([await count(a, path), await count(b, path), await count(c, path)]).toEqual([1, 1, 0]);
  });

  it("hedges because of a node for at most 10% of its face's misses (one to start with)", () => {
    const b = new UpstreamBoard();
    // b, listed second, is asked first for none of them: the face's misses count, not the ones b was first for.
    for (let i = 0; i < 20; i++) b.countMiss(peers);
    for (let i = 0; i < 3; i++) {
      expect(b.mayHedge("https://b")).toBe(true);
      b.countHedge("https://b");
    }
    expect(b.mayHedge("https://b")).toBe(false);
    expect(b.mayHedge("https://a")).toBe(true); // each node's hedges are its own
  });

  it("waits about the node's p95 before hedging: at least 150 ms, at most 1 s", () => {
    const b = new UpstreamBoard();
    expect(b.hedgeDelay("https://a", 0)).toBe(1000); // nothing measured yet
    for (let i = 0; i < 20; i++) b.record("https://a", { status: 200, ms: 10 }, 0, 0);
    expect(b.hedgeDelay("https://a", 0)).toBe(150);
    for (let i = 0; i < 20; i++) b.record("https://b", { status: 200, ms: i < 18 ? 100 : 600 }, 0, 0);
    expect(b.hedgeDelay("https://b", 0)).toBe(600);
    for (let i = 0; i < 20; i++) b.record("https://c", { status: 200, ms: 3000 }, 0, 0);
    expect(b.hedgeDelay("https://c", 0)).toBe(1000);
  });
});

describe("a node's limits kept", () => {
  async function benched(status: number, retryAfter: string): Promise<[Gateway, string, string]> {
    const [a, b] = [tag(), tag()];
    const gw = gateway([a, b], { UPSTREAM_COOLDOWN_MS: "0" }, ownOrigin());
    await fault({ tag: a, status, headers: { "retry-after": retryAfter }, times: 1 });
    expect((await gw.fetch(`/api${balances()}`)).status).toBe(200);
    expect([await count(a), await count(b)]).toEqual([1, 1]);
    return [gw, a, b];
  }

  it("asks a node whose 429 said Retry-After: 10 nothing for 10 s, then one probe, then serves it again", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const t0 = Date.now();
    const [gw, a, b] = await benched(429, "10");
    vi.setSystemTime(t0 + 9_900);
    // Not even as a last resort: b failing answers 502 rather than ask a.
    await fault({ tag: b, status: 500, times: 1 });
    expect((await gw.fetch(`/api${balances()}`)).status).toBe(502);
    expect((await gw.fetch(`/api${balances()}`)).status).toBe(200);
    expect([await count(a), await count(b)]).toEqual([1, 3]);
    vi.setSystemTime(t0 + 10_000);
    expect((await gw.fetch(`/api${balances()}`)).status).toBe(200);
    expect((await gw.fetch(`/api${balances()}`)).status).toBe(200);
    expect([await count(a), await count(b)]).toEqual([3, 3]);
  });

  it("reads a 503's Retry-After as an HTTP date too", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const t0 = Date.now();
    const [gw, a] = await benched(503, new Date(Math.ceil(t0 / 1000) * 1000 + 20_000).toUTCString());
    vi.setSystemTime(t0 + 19_000);
    expect((await gw.fetch(`/api${balances()}`)).status).toBe(200);
    expect(await count(a)).toBe(1);
  });

  it("benches for the Retry-After alone, not the failure's cooldown too", () => {
    const b = new UpstreamBoard();
    b.record("https://a", { status: 429, ms: 5, error: "answered 429", retryAfterMs: 2_000 }, 10_000, 0);
    b.record("https://b", { status: 200, ms: 5 }, 0, 0);
    expect(b.order(peers, 1_999)).toEqual(["https://b"]);
    expect(b.order(peers, 2_000)).toEqual(["https://a", "https://b"]);
  });

  it("sends one probe when the time is up: no other request while it is out", () => {
    const b = new UpstreamBoard();
    b.record("https://a", { status: 429, ms: 5, error: "answered 429", retryAfterMs: 10_000 }, 0, 0);
    expect(b.order(["https://a", "https://b"], 9_999)).toEqual(["https://b"]);
    expect(b.order(["https://a", "https://b"], 10_000)).toEqual(["https://a", "https://b"]);
    b.begin("https://a", 10_000);
    expect(b.order(["https://a", "https://b"], 10_001)).toEqual(["https://b"]);
    b.record("https://a", { status: 200, ms: 5 }, 0, 10_050);
    expect(b.order(["https://a", "https://b"], 10_051)).toEqual(["https://a", "https://b"]);
  });

  it("benches for at most 5 minutes, whatever Retry-After asks", () => {
    const b = new UpstreamBoard();
    b.record("https://a", { status: 429, ms: 5, error: "answered 429", retryAfterMs: 3_600_000 }, 0, 0);
    const [state] = b.snapshot(["https://a"], 0);
    expect(state).toMatchObject({ benchedUntil: 5 * 60_000, benchReason: "429, Retry-After 300 s" });
    expect(b.order(["https://a"], 5 * 60_000 - 1)).toEqual([]);
    expect(b.order(["https://a"], 5 * 60_000)).toEqual(["https://a"]);
  });

  it("reads Retry-After in seconds or as an HTTP date, only on a 429 or a 503", () => {
    const now = Date.UTC(2026, 0, 1);
    expect(retryAfterMs(429, "10", now)).toBe(10_000);
    expect(retryAfterMs(503, new Date(now + 30_000).toUTCString(), now)).toBe(30_000);
    expect(retryAfterMs(500, "10", now)).toBeUndefined();
    expect(retryAfterMs(429, "soon", now)).toBeUndefined();
    expect(retryAfterMs(429, null, now)).toBeUndefined();
  });
});

describe("a not-found is final at the top", () => {
  const rpcCall = (gw: Gateway, method: string, params: Record<string, unknown> = {}) =>
    gw
      .fetch("/rpc", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      })
      .then((r) => json<{ result?: unknown; error?: { code: number; data: string } }>(r));

  it("serves a tx look-up of an unknown hash from one node when every node is level", async () => {
    const [a, b] = [tag(), tag()];
    const urls = [a, b].map((t) => `${DEVNET}/~${t}/rpc`).join(",");
    const gw = gateway([tag()], { RPC_UPSTREAM_URLS: urls, UPSTREAM_COOLDOWN_MS: "0" }, ownOrigin());
    await fault({ tag: a, prefix: "/rpc/abci_info", status: 502, times: 1 });
    expect((await rpcCall(gw, "abci_info")).result).toBeDefined(); // b reports its height
    expect((await rpcCall(gw, "status")).result).toBeDefined(); // then a, at the same height or later
    const hash = btoa(String.fromCharCode(...Array(32).fill(0xcd)));
    expect((await rpcCall(gw, "tx", { hash })).error).toMatchObject({ code: -32603 });
    expect([await count(a, "/rpc/tx"), await count(b, "/rpc/tx")]).toEqual([1, 0]);
  });
});

describe("every answer says where it came from", () => {
  it("names the node and the attempts of a REST miss, and lets a browser read them", async () => {
    const [a, b] = [tag(), tag()];
    const gw = gateway([a, b], {}, ownOrigin());
    const path = balances();
    await fault({ tag: a, prefix: path, status: 500 });
    const miss = await gw.fetch(`/api${path}`);
    expect(miss.headers.get("x-edge-upstream")).toBe(new URL(DEVNET).origin);
    expect(miss.headers.get("x-edge-attempts")).toBe("2");
    expect(miss.headers.get("server-timing")).toMatch(/miss;dur=/);
    expect(miss.headers.get("access-control-expose-headers")).toContain("x-edge-upstream");
    const hit = await gw.fetch(`/api${path}`);
    expect(hit.headers.get("x-cache")).toBe("HIT");
    expect(hit.headers.get("x-edge-upstream")).toBeNull();
  });

  it("names the node of an RPC miss", async () => {
    const urls = `${DEVNET}/~${tag()}/rpc`;
    const gw = gateway([tag()], { RPC_UPSTREAM_URLS: urls }, ownOrigin());
    const miss = await gw.fetch("/rpc/abci_info");
    expect(miss.headers.get("x-edge-upstream")).toBe(new URL(DEVNET).origin);
    expect(miss.headers.get("x-edge-attempts")).toBe("1");
    expect(miss.headers.get("access-control-expose-headers")).toContain("x-edge-attempts");
  });

  it("says why every node failed, by position, when none answered", async () => {
    const gw = gateway([tag()], {}, ownOrigin());
    const path = balances();
    await fault({ prefix: path, status: 500 });
    const response = await gw.fetch(`/api${path}`);
    expect(await errorReason(response)).toBe("UPSTREAM_UNAVAILABLE");
  });
});

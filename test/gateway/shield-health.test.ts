/**
 * Upstream health shared across isolates through the UpstreamHealth object: a node one shield
 * found failing is asked last by every other, and `/api/health` shows what the shields saw.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { readConfig } from "../../src/config";
import { HealthLink, type HealthNamespace } from "../../src/gateway/shield/health-link";
import type { UpstreamState } from "../../src/gateway/upstream-board";
import { DEVNET, NODES, deployment, fault, freshAddress, gateway, json, tag, upstreamRequests } from "./helpers";

afterEach(() => {
  vi.useRealTimers();
});

const balances = () => `/cosmos/bank/v1beta1/balances/${freshAddress()}`;
const count = (t: string, path: string) => upstreamRequests(`~${t}${path}`);
/** A read of the latest state of `upstreamPath`. */
const latest = (upstreamPath: string) => ({ upstreamPath, height: null });

function settingsFor(tags: string[], vars: Record<string, string> = {}) {
  return readConfig({ ...env, UPSTREAM_URLS: tags.map((t) => `${DEVNET}/~${t}`).join(","), ...vars });
}

/** What reports the health object has taken in, through `recording`, and how many exchanges it had. */
const reported: UpstreamState[] = [];
let exchanges = 0;
const recording = {
  getByName: (...args: Parameters<HealthNamespace["getByName"]>) => {
    const health = env.UPSTREAM_HEALTH.getByName(...args);
    return {
      report: async (seen: UpstreamState[]) => {
        exchanges++;
        const merged = await health.report(seen);
        reported.push(...seen);
        return merged;
      },
    };
  },
} as unknown as HealthNamespace;

/** A health namespace whose object never answers: isolates that cannot share. */
const unreachable = {
  getByName: () => ({ report: () => Promise.reject(new Error("Network connection lost.")) }),
} as unknown as HealthNamespace;

describe("shared upstream health", () => {
  it("spares a second isolate the timeout that a first one found", async () => {
    const [a, b] = [tag(), tag()];
    // b answers within 1 s even on a loaded machine; a never does.
    const settings = settingsFor([a, b], { UPSTREAM_TIMEOUT_MS: "1000", UPSTREAM_COOLDOWN_MS: "60000" });
    await fault({ tag: a, delay_ms: 5000 });
    const background: Promise<unknown>[] = [];
    const keep = (work: Promise<unknown>) => background.push(work);
    const [amsterdam, sydney, lonely] = [new HealthLink(), new HealthLink(), new HealthLink()];

    const first = balances();
    expect((await amsterdam.ask(recording, settings, latest(first), keep)).status).toBe(200);
    // The discovery reached the health object before the answer left, not some time after.
    expect(reported.some((s) => s.url.endsWith(`/~${a}`) && s.lastError !== null)).toBe(true);
    expect([await count(a, first), await count(b, first)]).toEqual([1, 1]);

    const second = balances();
    expect((await sydney.ask(env.UPSTREAM_HEALTH, settings, latest(second), keep)).status).toBe(200);
    expect([await count(a, second), await count(b, second)]).toEqual([0, 1]);

    // An isolate that cannot reach the health object pays for the discovery again.
    const third = balances();
    expect((await lonely.ask(unreachable, settings, latest(third), keep)).status).toBe(200);
    expect([await count(a, third), await count(b, third)]).toEqual([1, 1]);
    await Promise.all(background);
  });

  it("carries a node's Retry-After to every isolate: a second one asks it nothing while it is benched", async () => {
    const [a, b] = [tag(), tag()];
    const settings = settingsFor([a, b], { UPSTREAM_COOLDOWN_MS: "0" });
    await fault({ tag: a, status: 429, headers: { "retry-after": "10" }, times: 1 });
    const [frankfurt, tokyo] = [new HealthLink(), new HealthLink()];
    const first = balances();
    expect((await frankfurt.ask(env.UPSTREAM_HEALTH, settings, latest(first), () => undefined)).status).toBe(200);
    expect([await count(a, first), await count(b, first)]).toEqual([1, 1]);
    const second = balances();
    expect((await tokyo.ask(env.UPSTREAM_HEALTH, settings, latest(second), () => undefined)).status).toBe(200);
    expect([await count(a, second), await count(b, second)]).toEqual([0, 1]);
    // Benched, not merely skipped: not even asked as a last resort when b fails.
    const third = balances();
    await fault({ tag: b, prefix: third, status: 500 });
    await expect(tokyo.ask(env.UPSTREAM_HEALTH, settings, latest(third), () => undefined)).rejects.toMatchObject({
      status: 502,
    });
    expect([await count(a, third), await count(b, third)]).toEqual([0, 1]);
  });

  it("carries a node's lag to every isolate: a second one asks the node in step first", async () => {
    const [a, b] = [tag(), tag()];
    const settings = settingsFor([a, b], { UPSTREAM_COOLDOWN_MS: "0" });
    const [frankfurt, tokyo] = [new HealthLink(), new HealthLink()];
    const first = balances();
    await fault({ tag: a, prefix: first, status: 500 });
    await frankfurt.ask(env.UPSTREAM_HEALTH, settings, latest(first), () => undefined); // b reports its height
    const second = balances();
    await fault({ tag: a, prefix: second, height_offset: -50 });
    await frankfurt.ask(env.UPSTREAM_HEALTH, settings, latest(second), () => undefined); // a reports 50 behind
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 1000); // frankfurt's next round reports what it saw
    await frankfurt.ask(env.UPSTREAM_HEALTH, settings, latest(balances()), () => undefined);
    const third = balances();
    expect((await tokyo.ask(env.UPSTREAM_HEALTH, settings, latest(third), () => undefined)).status).toBe(200);
    expect([await count(a, third), await count(b, third)]).toEqual([0, 1]);
  });

  it("exchanges with the health object at most once a second while nothing changes", async () => {
    const settings = settingsFor([tag()]);
    const link = new HealthLink();
    const before = exchanges;
    vi.useFakeTimers({ toFake: ["Date"] });
    // The first round takes the shared view, then reports a node seen for the first time.
    for (let i = 0; i < 5; i++) await link.ask(recording, settings, latest(balances()), () => undefined);
    expect(exchanges - before).toBe(2);
    vi.setSystemTime(Date.now() + 1000);
    for (let i = 0; i < 5; i++) await link.ask(recording, settings, latest(balances()), () => undefined);
    expect(exchanges - before).toBe(3);
  });

  it("shows in /api/health what the shields saw, which this isolate never asked", async () => {
    const gw = deployment();
    const path = balances();
    await fault({ tag: NODES[0], prefix: path, status: 503 });
    expect((await gw.fetch(`/api${path}`)).status).toBe(200);
    const report = await json<{
      shield: Record<string, unknown>;
      upstreams: { healthy: boolean; last_status: number | null; last_error: string | null }[];
    }>(await gw.fetch("/api/health"));
    expect(report.shield).toMatchObject({ enabled: true, shared_health: "included" });
    expect(report.upstreams[0]).toMatchObject({ healthy: false, last_status: 503, last_error: "answered 503" });
    expect(report.upstreams[1]).toMatchObject({ healthy: true, last_status: 200 });
  });

  it("says when the shared view is missing, and shows this isolate's own then", async () => {
    const gw = gateway([tag()], { CACHE_SHIELD: "on" }, { bindings: { UPSTREAM_HEALTH: unreachable } });
    const report = await json<{ shield: Record<string, unknown>; upstreams: unknown[] }>(await gw.fetch("/api/health"));
    expect(report.shield).toMatchObject({ enabled: true, shared_health: "unreachable" });
    expect(report.upstreams).toHaveLength(1);
    const off = gateway([tag()], { CACHE_SHIELD: "off" });
    expect((await json<{ shield: Record<string, unknown> }>(await off.fetch("/api/health"))).shield).toMatchObject({
      enabled: false,
      shared_health: "off",
    });
  });
});

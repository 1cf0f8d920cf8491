/**
 * `GET /api/gateway` (src/gateway/view.ts): the nodes as the operator sees them, in the agreed
 * shape, for a host key only. Nodes are devnet mounts with set delays and faults.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { GatewayView as View } from "../../src/protocol/gateway-view";
import { HOST_KEYS } from "../host-settings";
import { DEVNET, fault, freshAddress, gateway, json, tag } from "./helpers";

afterEach(() => vi.useRealTimers());

const balances = () => `/cosmos/bank/v1beta1/balances/${freshAddress()}`;
const asHost = { headers: { authorization: `Bearer ${HOST_KEYS[0]}` } };

describe("GET /api/gateway", () => {
  it("shows the slow node's p50 at 300 ms or more, and the 429 node benched with its reason", async () => {
    const [slow, limited, fast] = [tag(), tag(), tag()];
    const rpc = tag();
    const gw = gateway(
      [slow, limited, fast],
      { UPSTREAM_COOLDOWN_MS: "0", RPC_UPSTREAM_URLS: `${DEVNET}/~${rpc}/rpc` },
      { origin: `https://${tag()}.edge.test` },
    );
    await fault({ tag: slow, delay_ms: 300 });
    await fault({ tag: limited, status: 429, headers: { "retry-after": "10" } });
    const t0 = Date.now();
    // slow answers (measured at 300 ms), then is passed over: limited is asked, answers 429, fast answers.
    for (let i = 0; i < 3; i++) expect((await gw.fetch(`/api${balances()}`)).status).toBe(200);
    const t1 = Date.now();
    const response = await gw.fetch("/api/gateway", asHost);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const view = await json<View>(response);
    expect(Date.parse(view.at)).toBeGreaterThanOrEqual(t1);
    expect(view.served_height).toBeGreaterThan(0);
    const [s, l, f] = view.faces.rest;
    expect(view.faces.rest.map((n) => n.url)).toEqual([slow, limited, fast].map((t) => `${DEVNET}/~${t}`));
    expect(s!.latency_ms.p50).toBeGreaterThanOrEqual(300);
    expect(s).toMatchObject({ state: "serving", reason: null, until: null, errors_last_minute: 0 });
    expect(l).toMatchObject({
      state: "benched",
      reason: "429, Retry-After 10 s",
      errors_last_minute: 1,
    });
    // Benched when its 429 came: 10 s from then.
    expect(Date.parse(l!.until!)).toBeGreaterThanOrEqual(t0 + 10_000);
    expect(Date.parse(l!.until!)).toBeLessThanOrEqual(t1 + 10_000);
    expect(f).toMatchObject({ state: "serving", behind: 0 });
    expect(f!.height).toBe(view.served_height);
    expect(view.faces.rpc).toEqual([
      {
        url: `${DEVNET}/~${rpc}/rpc`,
        height: null,
        behind: null,
        latency_ms: { p50: null, p99: null },
        errors_last_minute: 0,
        state: "serving",
        reason: null,
        until: null,
      },
    ]);
  });

  it("shows a node more than 2 blocks behind as behind, with how far", async () => {
    const [a, b] = [tag(), tag()];
    const gw = gateway([a, b], { UPSTREAM_COOLDOWN_MS: "0" }, { origin: `https://${tag()}.edge.test` });
    const first = balances();
    await fault({ tag: a, prefix: first, status: 500 });
    await gw.fetch(`/api${first}`); // b reports its height
    const second = balances();
    await fault({ tag: a, prefix: second, height_offset: -50 });
    await gw.fetch(`/api${second}`); // a reports 50 behind, b is asked again
    const [na] = (await json<View>(await gw.fetch("/api/gateway", asHost))).faces.rest;
    expect(na).toMatchObject({ state: "behind", reason: `${na!.behind} blocks behind` });
    expect(na!.behind).toBeGreaterThanOrEqual(50);
  });

  it("answers 401 without a host key or a session", async () => {
    const gw = gateway();
    const response = await gw.fetch("/api/gateway");
    expect(response.status).toBe(401);
  });
});

import { env, exports } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { version } from "../../package.json";
import { DEVNET, NODES, gateway, lastUpstreamHeaders, tag } from "../gateway/helpers";
import { HOST_KEYS, HOST_WEBHOOK_SECRET } from "../host-settings";

afterEach(() => vi.restoreAllMocks());

const get = (path: string) => exports.default.fetch(new Request(`https://edge.test${path}`));

describe("GET /api/health", () => {
  it("reports version, configuration without secrets, and each upstream", async () => {
    const response = await get("/api/health");
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const report = await response.json<Record<string, any>>();
    expect(report).toMatchObject({
      status: "ok",
      version,
      config: {
        chain_id: "chain-devnet-1",
        namespace: "chain",
        wallet_path: "wallet",
        upstream_auth_header: "not set",
      },
    });
    expect(report.host_handoff).toMatchObject({
      host_api: "2 key(s) set",
      webhook: new URL((env as unknown as { WEBHOOK_RECEIVER_URL: string }).WEBHOOK_RECEIVER_URL).origin,
      onboarding_check_seconds: 6,
    });
    for (const key of HOST_KEYS) expect(JSON.stringify(report)).not.toContain(key);
    expect(JSON.stringify(report)).not.toContain(HOST_WEBHOOK_SECRET.slice("whsec_".length));
    expect(report.upstreams).toHaveLength(NODES.length);
    expect(report.upstreams[0]).toMatchObject({
      upstream: `1: ${new URL(DEVNET).origin}`,
      healthy: true,
      consecutive_failures: 0,
    });
  });

  it("never shows the UPSTREAM_AUTH_HEADER's value, only that one is set", async () => {
    const secret = "pk-9f3c1e7a52d04b6e";
    const gw = gateway([tag()], { UPSTREAM_AUTH_HEADER: `X-Provider-Key: ${secret}` });
    const path = "/cosmos/bank/v1beta1/supply?pagination.limit=3";
    expect((await gw.fetch(`/api${path}`)).status).toBe(200);
    expect((await lastUpstreamHeaders(`~${gw.tags[0]}${path}`))["x-provider-key"]).toBe(secret);
    const text = await (await gw.fetch("/api/health")).text();
    expect((JSON.parse(text) as { config: Record<string, unknown> }).config.upstream_auth_header).toBe("set");
    expect(text).not.toContain(secret);
  });

  it("names an upstream by its origin only: a provider's key in its path never shows", async () => {
    const secret = "sk-live-4f9a2c71d0e8b356";
    const gw = gateway([secret]);
    await gw.fetch("/api/cosmos/bank/v1beta1/supply?pagination.limit=1");
    const text = await (await gw.fetch("/api/health")).text();
    const report = JSON.parse(text) as { upstreams: { upstream: string; last_status: number | null }[] };
    expect(report.upstreams).toEqual([
      expect.objectContaining({ upstream: `1: ${new URL(DEVNET).origin}`, last_status: 200 }),
    ]);
    expect(text).not.toContain(secret);
  });

  it("turns to down (503) once every upstream is being skipped after failures", async () => {
    vi.spyOn(globalThis, "fetch").mockRejectedValue(new TypeError("connect ECONNREFUSED"));
    for (let i = 0; i < 5; i++) await get(`/api/cosmos/bank/v1beta1/supply?pagination.limit=${i + 1}`);
    vi.restoreAllMocks();
    const response = await get("/api/health");
    expect(response.status).toBe(503);
    const report = await response.json<{
      status: string;
      upstreams: { healthy: boolean; last_error: string | null }[];
    }>();
    expect(report.status).toBe("down");
    expect(report.upstreams[0]!.healthy).toBe(false);
    expect(report.upstreams[0]!.last_error).toBeTruthy();
  });
});

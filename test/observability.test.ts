import { afterEach, describe, expect, it, vi } from "vitest";
import { freshAddress, gateway } from "./gateway/helpers";
import { WALLET, api, createSession, mintSessionId } from "./helpers/sessions";

afterEach(() => vi.restoreAllMocks());

function accessLines(spy: { mock: { calls: unknown[][] } }) {
  return spy.mock.calls
    .map(([line]) => (typeof line === "string" && line.startsWith("{") ? JSON.parse(line) : null))
    .filter((line): line is Record<string, unknown> => line !== null && "request_id" in line);
}

describe("request id and access log", () => {
  it("returns a request id and prints one JSON line per request with route, status and timing", async () => {
    const sessionId = await createSession();
    const log = vi.spyOn(console, "log");
    const response = await api(`${WALLET}/${sessionId}`);
    const requestId = response.headers.get("x-request-id");
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    const lines = accessLines(log);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: "info",
      request_id: requestId,
      method: "GET",
      route: "/api/wallet/sessions/:id",
      path: `${WALLET}/${sessionId}`,
      status: 200,
    });
    expect(typeof lines[0]!.duration_ms).toBe("number");
  });

  it("uses Cloudflare's ray id when there is one, on errors too", async () => {
    const log = vi.spyOn(console, "log");
    const response = await api(`${WALLET}/${mintSessionId()}`, { headers: { "cf-ray": "8f00aa11bb22cc33-AMS" } });
    expect(response.status).toBe(404);
    expect(response.headers.get("x-request-id")).toBe("8f00aa11bb22cc33-AMS");
    expect(accessLines(log)[0]).toMatchObject({ request_id: "8f00aa11bb22cc33-AMS", status: 404 });
  });
});

describe("gateway access log", () => {
  it("names the route pattern, the cache status and the upstream time of every gateway request", async () => {
    const gw = gateway();
    const operator = freshAddress();
    const path = `/api/chain/incentives/v1/node/${operator}`;
    const log = vi.spyOn(console, "log");
    await gw.fetch(path); // a miss: the node answers 404
    await gw.settle();
    await gw.fetch(path); // a hot replay
    await gw.fetch("/api/chain/incentives/v1/node/not-an-address"); // refused before the cache
    await gw.fetch(path, { method: "OPTIONS", headers: { origin: "https://app.example", "access-control-request-method": "GET" } });
    const route = "/api/chain/incentives/v1/node/:operator";
    const lines = accessLines(log);
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatchObject({ route, path, status: 404, cache: "MISS", upstream_ms: expect.any(Number) });
    expect(lines[1]).toMatchObject({ route, path, status: 404, cache: "HIT", upstream_ms: null });
    expect(lines[2]).toMatchObject({ route, status: 400, cache: "BYPASS", upstream_ms: null });
    expect(lines[3]).toMatchObject({ method: "OPTIONS", status: 204, cache: "BYPASS" });
  });
});

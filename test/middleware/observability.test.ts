import { env } from "cloudflare:workers";
import { HTTPException } from "hono/http-exception";
import { afterEach, describe, expect, it, vi } from "vitest";
import { buildApp } from "../../src/app";
import { readConfig } from "../../src/config";
import { fault, freshAddress, gateway, tag } from "../gateway/helpers";
import { WALLET, api, createSession, mintSessionId } from "../helpers/sessions";

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
      event: "request",
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

describe("exactly one access-log line per /api request, whatever the answer", () => {
  const t = tag();
  const failing = `/cosmos/bank/v1beta1/balances/${freshAddress()}`;
  it.each([
    ["404 for a path no route has", "GET", "/api/no-such-thing", 404],
    ["404 for a gateway path no row has", "GET", "/api/cosmos/gov/v1beta1/proposals", 404],
    ["405 for a write to the gateway", "POST", "/api/cosmos/bank/v1beta1/supply", 405],
    ["400 for a refused parameter", "GET", "/api/cosmos/bank/v1beta1/balances/not-an-address", 400],
    ["502 when every upstream fails", "GET", `/api${failing}`, 502],
  ])("%s", async (_name, method, path, status) => {
    await fault({ tag: t, prefix: failing, status: 500 });
    const rayId = `ray-${crypto.randomUUID()}`;
    const log = vi.spyOn(console, "log");
    // A 5xx line is printed at the error level.
    const error = vi.spyOn(console, "error");
    const response = await gateway([t]).fetch(path, { method, headers: { "cf-ray": rayId } });
    expect(response.status).toBe(status);
    expect(response.headers.get("x-request-id")).toBe(rayId);
    const mine = [...accessLines(log), ...accessLines(error)].filter(
      (line) => line.request_id === rayId && line.event === "request",
    );
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ method, path, status, level: status >= 500 ? "error" : "info" });
  });
});

describe("gateway access log", () => {
  it(
    "names the route pattern, the cache status and the time beyond the data center of every gateway " + "request",
    async () => {
      const gw = gateway();
      const operator = freshAddress();
      const path = `/api/chain/incentives/v1/node/${operator}`;
      const log = vi.spyOn(console, "log");
      await gw.fetch(path); // a miss: the node answers 404
      await gw.settle();
      await gw.fetch(path); // from the isolate's memory
      await gw.fetch("/api/chain/incentives/v1/node/not-an-address"); // refused before the cache
      await gw.fetch(path, {
        method: "OPTIONS",
        headers: { origin: "https://app.example", "access-control-request-method": "GET" },
      });
      const route = "/api/chain/incentives/v1/node/:operator";
      const lines = accessLines(log);
      expect(lines).toHaveLength(4);
      expect(lines[0]).toMatchObject({ route, path, status: 404, cache: "MISS", miss_ms: expect.any(Number) });
      expect(lines[1]).toMatchObject({ route, path, status: 404, cache: "HIT", miss_ms: null });
      expect(lines[2]).toMatchObject({ route, status: 400, cache: "BYPASS", miss_ms: null });
      expect(lines[3]).toMatchObject({ method: "OPTIONS", status: 204, cache: "BYPASS" });
    },
  );
});

describe("errors the handlers did not plan", () => {
  /** The app with one more route that throws `error`. */
  async function throwing(error: Error, rayId: string): Promise<Response> {
    const app = buildApp(readConfig(env));
    app.get("/__throws", () => {
      throw error;
    });
    return app.fetch(new Request("https://edge.test/__throws", { headers: { "cf-ray": rayId } }), env, {
      waitUntil() {},
      passThroughOnException() {},
    } as unknown as ExecutionContext);
  }

  it("answers a 500 in the one error shape and logs its stack under the request id the client got", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    const response = await throwing(new TypeError("boom"), "ray-internal");
    expect(response.status).toBe(500);
    expect(response.headers.get("x-request-id")).toBe("ray-internal");
    expect(await response.json()).toMatchObject({ code: 13, details: [{ reason: "INTERNAL" }] });
    const lines = accessLines(error);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: "error",
        event: "internal_error",
        request_id: "ray-internal",
        error: "TypeError: boom",
        stack: expect.stringContaining("boom"),
      }),
    );
  });

  it("answers a hono HTTPException with its status in the one error shape, not as a 500", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    const response = await throwing(new HTTPException(413, { message: "Payload Too Large" }), "ray-http");
    expect(response.status).toBe(413);
    expect(response.headers.get("x-request-id")).toBe("ray-http");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await response.json()).toEqual({
      code: 3,
      message: "Payload Too Large",
      details: [
        { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "BODY_TOO_LARGE", domain: "edge", metadata: {} },
      ],
    });
    expect(accessLines(error).filter((line) => line.event === "internal_error")).toEqual([]);
    expect(accessLines(log)).toContainEqual(
      expect.objectContaining({ event: "request", request_id: "ray-http", status: 413 }),
    );
  });

  it("keeps an HTTPException's own headers, and answers its body in the one shape", async () => {
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    const own = new Response("Unauthorized", {
      status: 401,
      headers: { "www-authenticate": 'Basic realm="edge"', "content-type": "text/plain", "retry-after": "30" },
    });
    const response = await throwing(new HTTPException(401, { res: own, message: "Unauthorized" }), "ray-own");
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe('Basic realm="edge"');
    expect(response.headers.get("retry-after")).toBe("30");
    expect(response.headers.get("x-request-id")).toBe("ray-own");
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await response.json()).toMatchObject({ code: 16, message: "Unauthorized" });
  });
});

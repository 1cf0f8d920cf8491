import { afterEach, describe, expect, it, vi } from "vitest";
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

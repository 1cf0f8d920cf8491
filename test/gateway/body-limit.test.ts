/**
 * The Worker's one body limit (src/http/body-limit.ts), measured in bytes at the entry while the
 * body streams: chunked bodies (a ReadableStream without Content-Length) and bodies of two-byte
 * characters, on the RPC face (413 in JSON-RPC form) and on a JSON route (413 in the one error
 * shape), through the Worker's own fetch in workerd. The figures are pinned at their edges.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { readConfig } from "../../src/config";
import { RPC_MAX_BATCH } from "../../src/gateway/rpc/limits";
import { DEVNET, ORIGIN, gateway, tag, upstreamRequests, type Gateway } from "./helpers";

const CHUNK = 16 * 1024;

/**
 * A body streamed in chunks of `CHUNK` bytes with no Content-Length; `pulled()` says how many bytes were read.
 * Without a total it never ends: after 1 MiB it stalls, as a client that stops sending without closing.
 */
function streamed(bytes: Uint8Array | null, total = bytes?.length ?? Infinity) {
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (total === Infinity && sent >= 1024 * 1024) return new Promise<void>(() => undefined);
        if (sent >= total) return controller.close();
        const size = Math.min(CHUNK, total - sent);
        controller.enqueue(bytes ? bytes.slice(sent, sent + size) : new Uint8Array(size).fill(0x5b));
        sent += size;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, pulled: () => sent };
}

const encode = (text: string) => new TextEncoder().encode(text);

/** A `health` call padded with `é` (two bytes each) to exactly `bytes` bytes. */
function paddedCall(bytes: number): Uint8Array {
  const bare = encode('{"jsonrpc":"2.0","id":1,"method":"health","params":{"pad":""}}').length;
  const pad = bytes - bare;
  const padding = "é".repeat(pad >> 1) + "x".repeat(pad & 1);
  const body = encode(`{"jsonrpc":"2.0","id":1,"method":"health","params":{"pad":"${padding}"}}`);
  expect(body.length).toBe(bytes);
  return body;
}

function rpcGateway(): Gateway & { rpcTag: string } {
  const rpcTag = tag();
  return { ...gateway([tag()], { RPC_UPSTREAM_URLS: `${DEVNET}/~${rpcTag}/rpc` }), rpcTag };
}

const post = (gw: Gateway, body: BodyInit) =>
  gw.fetch("/rpc", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
    duplex: "half",
  } as RequestInit);

async function expectRpc413(response: Response): Promise<void> {
  expect(response.status).toBe(413);
  expect(await response.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
}

async function expectHealthy(gw: Gateway): Promise<void> {
  const next = await post(gw, '{"jsonrpc":"2.0","id":"next","method":"health"}');
  expect(next.status).toBe(200);
  expect(await next.json()).toEqual({ jsonrpc: "2.0", id: "next", result: {} });
}

describe("the RPC face's body limit, in bytes, while the body streams", () => {
  it("refuses 70,000 bytes in two-byte characters (35,000 characters), chunked or not, then answers", async () => {
    const gw = rpcGateway();
    const body = encode(`{"jsonrpc":"2.0","id":1,"method":"health","params":{"pad":"${"é".repeat(35_000)}"}}`);
    expect(body.length).toBeGreaterThan(70_000);
    await expectRpc413(await post(gw, streamed(body).stream));
    await expectRpc413(await post(gw, body));
    expect(await upstreamRequests(`~${gw.rpcTag}/rpc`)).toBe(0);
    await expectHealthy(gw);
  });

  it("refuses a 4 MiB chunked body at the limit: the 413 is out before the end of the body is read", async () => {
    const gw = rpcGateway();
    const body = streamed(null, 4 * 1024 * 1024);
    const response = await post(gw, body.stream);
    expect(response.status).toBe(413);
    expect(body.pulled()).toBeLessThanOrEqual(65_536 + 4 * CHUNK);
    // Up to 1 MiB more is read and dropped before the answer ends (a proxy resets a connection whose body is
    // abandoned mid-send), and no more: the rest of the 4 MiB is left unread.
    await expectRpc413(response);
    expect(body.pulled()).toBeGreaterThan(1_048_576);
    expect(body.pulled()).toBeLessThanOrEqual(65_536 + 1_048_576 + 4 * CHUNK);
    await expectHealthy(gw);
  });

  it("refuses a body that never ends (it stalls after 1 MiB), instead of waiting for its end", async () => {
    const gw = rpcGateway();
    const endless = streamed(null);
    const response = await post(gw, endless.stream);
    expect(response.status).toBe(413);
    expect(endless.pulled()).toBeLessThanOrEqual(65_536 + 4 * CHUNK);
    await response.body?.cancel();
  });

  it("passes 64 KiB exactly and refuses one byte more, chunked and with a length", async () => {
    const gw = rpcGateway();
    for (const [bytes, status] of [
      [65_536, 200],
      [65_537, 413],
    ] as const) {
      const body = paddedCall(bytes);
      for (const sent of [body, streamed(body).stream]) {
        const response = await post(gw, sent);
        expect(response.status).toBe(status);
        if (status === 200) expect(await response.json()).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
        else await expectRpc413(response);
      }
    }
  });

  it("judges a body that declares its Content-Length by it: 64 KiB passes, one byte more is refused", async () => {
    const gw = rpcGateway();
    for (const [bytes, status] of [
      [65_536, 200],
      [65_537, 413],
    ] as const) {
      const response = await gw.fetch("/rpc", {
        method: "POST",
        headers: { "content-type": "application/json", "content-length": String(bytes) },
        body: paddedCall(bytes),
      });
      expect(response.status).toBe(status);
      if (status === 200) expect(await response.json()).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
      else await expectRpc413(response);
    }
  });

  it("passes a batch of 20 and refuses 21 whole", async () => {
    const gw = rpcGateway();
    const batch = (n: number) =>
      JSON.stringify(Array.from({ length: n }, (_, id) => ({ jsonrpc: "2.0", id, method: "health" })));
    const twenty = (await (await post(gw, batch(RPC_MAX_BATCH))).json()) as { id: number; result: unknown }[];
    expect(twenty.map((a) => a.id)).toEqual([...Array(RPC_MAX_BATCH).keys()]);
    expect(twenty.every((a) => a.result !== undefined)).toBe(true);
    const before = await upstreamRequests(`~${gw.rpcTag}/rpc`);
    const refused = await post(gw, batch(RPC_MAX_BATCH + 1));
    expect(refused.status).toBe(200);
    expect(await refused.json()).toMatchObject({ id: null, error: { code: -32600 } });
    expect(await upstreamRequests(`~${gw.rpcTag}/rpc`)).toBe(before);
  });
});

describe("the one limit at the Worker's entry", () => {
  const entry = (path: string, body: BodyInit) =>
    exports.default.fetch(
      new Request(`${ORIGIN}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
        duplex: "half",
      } as RequestInit),
    );

  it("refuses an oversized chunked body on the RPC face in JSON-RPC form, then answers the next request", async () => {
    const body = encode(`{"jsonrpc":"2.0","id":1,"method":"health","params":{"pad":"${"é".repeat(35_000)}"}}`);
    await expectRpc413(await entry("/rpc", streamed(body).stream));
    await expectRpc413(await entry("/rpc/", streamed(null, 4 * 1024 * 1024).stream));
    const next = await exports.default.fetch(`${ORIGIN}/api/health`);
    expect(next.status).toBeLessThan(500);
  });

  it("refuses it on a JSON route in the one error shape, before the route reads it", async () => {
    const path = `/api/${readConfig(env).walletPath}/sessions`;
    const response = await entry(path, streamed(null, 4 * 1024 * 1024).stream);
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({
      details: [{ reason: "BODY_TOO_LARGE", metadata: { limit_bytes: "65536" } }],
    });
    expect(response.headers.get("x-request-id")).toBeTruthy();
  });
});

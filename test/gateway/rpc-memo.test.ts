/**
 * The call memo (src/gateway/rpc/call-memo.ts) answers a repeated call from the isolate's memory
 * before it is parsed: it must never answer a body that is not valid JSON, nor answer a body
 * other than the parser would. Each case is sent after a call of the same shape was served and
 * remembered, so a byte-wise match would find it.
 */
import { describe, expect, it } from "vitest";
import { DEVNET, gateway, tag, type Gateway } from "./helpers";

const REST = '"method":"status","params":{}}';

async function servedGateway(): Promise<Gateway> {
  const gw = gateway([tag()], { RPC_UPSTREAM_URLS: `${DEVNET}/~${tag()}/rpc` });
  // Served, then asked again with another id: the second is the memo's.
  for (const id of [1, 2]) await post(gw, `{"jsonrpc":"2.0","id":${id},${REST}`);
  await gw.settle();
  const hit = await post(gw, `{"jsonrpc":"2.0","id":3,${REST}`);
  expect(hit.headers.get("x-cache")).toBe("HIT");
  return gw;
}

const post = (gw: Gateway, body: string) =>
  gw.fetch("/rpc", { method: "POST", headers: { "content-type": "application/json" }, body });

/** The answer's text parses, and says the same as the parser path would. */
async function answerOf(
  gw: Gateway,
  body: string,
): Promise<{ id?: unknown; error?: { code: number }; result?: unknown }> {
  const response = await post(gw, body);
  expect(response.status).toBe(200);
  const text = await response.text();
  return JSON.parse(text) as { id?: unknown; error?: { code: number }; result?: unknown };
}

describe("the call memo answers only valid JSON, as the parser would", () => {
  const notJson: [string, string][] = [
    ["a leading zero", `{"jsonrpc":"2.0","id":007,${REST}`],
    ["a lone minus", `{"jsonrpc":"2.0","id":-,${REST}`],
    ["trailing garbage", `{"jsonrpc":"2.0","id":4,${REST}garbage`],
    ["a second body", `{"jsonrpc":"2.0","id":4,${REST}{}`],
    ["a leading zero in a negative id", `{"jsonrpc":"2.0","id":-01,${REST}`],
    ["hex", `{"jsonrpc":"2.0","id":0x1,${REST}`],
  ];
  for (const [name, body] of notJson) {
    it(`answers ${name} with -32700, never from memory`, async () => {
      const gw = await servedGateway();
      const response = await post(gw, body);
      expect(response.headers.get("x-cache")).not.toBe("HIT");
      expect(JSON.parse(await response.text())).toMatchObject({ id: null, error: { code: -32700 } });
    });
  }

  const valid: [string, string, unknown][] = [
    ["-0", `{"jsonrpc":"2.0","id":-0,${REST}`, 0],
    ["an exponent", `{"jsonrpc":"2.0","id":1e2,${REST}`, 100],
    ["a fraction", `{"jsonrpc":"2.0","id":1.5,${REST}`, 1.5],
    ["whitespace around the id", `{"jsonrpc":"2.0","id": 5 ,${REST}`, 5],
  ];
  for (const [name, body, id] of valid) {
    it(`answers ${name} as the parser reads it`, async () => {
      const gw = await servedGateway();
      const answer = await answerOf(gw, body);
      expect(answer.id).toBe(id);
      expect(answer.result).toBeDefined();
    });
  }

  // Sent twice with another first id: the second would be the memo's if it took the body's shape.
  for (const [name, key] of [
    ["a duplicate id", '"id"'],
    ["a duplicate id spelled with an escape", '"\\u0069d"'],
  ]) {
    it(`answers ${name} with the id a parser takes (the last), each time`, async () => {
      const gw = await servedGateway();
      for (const first of [6, 7]) {
        const answer = await answerOf(gw, `{"jsonrpc":"2.0","id":${first},"method":"status","params":{},${key}:9}`);
        expect(answer.id).toBe(9);
        await gw.settle();
      }
    });
  }
});

describe("an answer from the memo", () => {
  /** The headers but the two each request writes for itself (its id, its timing). */
  const kept = (response: Response) =>
    Object.fromEntries([...response.headers].filter(([name]) => name !== "x-request-id" && name !== "server-timing"));

  it("carries the headers the router gives the same call from the same entry, and its own request id", async () => {
    const gw = await servedGateway();
    // Whitespace after the brace: not the memo's shape, so parsed and answered by the router, from the same entry.
    const routed = await post(gw, `{ "jsonrpc":"2.0","id":4,${REST}`);
    const fromMemo = await Promise.all(
      ["ray-a", "ray-b"].map((ray) =>
        gw.fetch("/rpc", {
          method: "POST",
          headers: { "content-type": "application/json", "cf-ray": ray },
          body: `{"jsonrpc":"2.0","id":5,${REST}`,
        }),
      ),
    );
    expect(routed.headers.get("x-cache")).toBe("HIT");
    for (const response of fromMemo) expect(kept(response)).toEqual(kept(routed));
    expect(fromMemo.map((r) => r.headers.get("x-request-id"))).toEqual(["ray-a", "ray-b"]);
    expect(fromMemo.every((r) => r.headers.get("server-timing")?.startsWith(`cache;desc="HIT"`))).toBe(true);
  });
});

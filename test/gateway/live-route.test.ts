/**
 * The live face's door and its frame rules in workerd: 426 without an upgrade and 503 with no RPC
 * node, in the one error shape; each refusal of socket-call.ts a JSON-RPC error whose `data` says
 * why, and a read handed to the cache untouched.
 */
import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/app";
import { readConfig } from "../../src/config";
import { errorBodySchema } from "../../src/error-body-schema";
import { socketCall, type Subscribed } from "../../src/gateway/live/socket-call";
import { DEVNET, ORIGIN, gateway, tag } from "./helpers";

const call = (method: string, params: unknown = {}, id: unknown = 7) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, params });

function refusal(frame: string | ArrayBuffer, subs: Subscribed[] = []): { code: number; data: string } {
  const outcome = socketCall(frame, subs);
  if (!("reply" in outcome)) throw new Error("a read, not a refusal");
  return (JSON.parse(outcome.reply) as { error: { code: number; data: string } }).error;
}

describe("GET /rpc/websocket", () => {
  it("answers 426 without an upgrade and 503 with no RPC node, in the one error shape", async () => {
    const served = gateway([tag()], { RPC_UPSTREAM_URLS: `${DEVNET}/~${tag()}/rpc` });
    const plain = await served.fetch("/rpc/websocket");
    expect(plain.status).toBe(426);
    expect(errorBodySchema.parse(await plain.json()).details[0]!.reason).toBe("UPGRADE_REQUIRED");
    // A profile without RPC nodes (neutral's) and RPC_UPSTREAM_URLS unset.
    const app = buildApp({ ...readConfig(env), rpcUpstreamUrls: [] });
    const upgrade = { headers: { upgrade: "websocket" } };
    const none = await app.fetch(new Request(`${ORIGIN}/rpc/websocket`, upgrade), env, createExecutionContext());
    expect(none.status).toBe(503);
    expect(errorBodySchema.parse(await none.json()).details[0]!.reason).toBe("NO_RPC_UPSTREAM");
  });
});

describe("sockets held per client IP", () => {
  const ip = () => `203.0.113.${Math.floor(Math.random() * 250)}-${tag()}`;
  const door = (vars: Record<string, string>) => {
    const served = gateway([tag()], { RPC_UPSTREAM_URLS: `${DEVNET}/~${tag()}/rpc`, ...vars });
    return (from: string) =>
      served.fetch("/rpc/websocket", { headers: { upgrade: "websocket", "cf-connecting-ip": from } });
  };
  const held = (response: Response) => {
    expect(response.status).toBe(101);
    const ws = response.webSocket!;
    ws.accept();
    return ws;
  };

  it("answers past the cap 429 in the one error shape, and takes one again once a socket closes", async () => {
    const open = door({ RATE_LIMITS: "on", LIVE_SOCKETS_PER_IP: "3" });
    const client = ip();
    const sockets = [held(await open(client)), held(await open(client)), held(await open(client))];
    const refused = await open(client);
    expect(refused.status).toBe(429);
    expect(refused.webSocket).toBeNull();
    const body = errorBodySchema.parse(await refused.json());
    expect(body.details[0]!.reason).toBe("TOO_MANY_SOCKETS");
    expect(body.message).toMatch(/holds 3 live sockets/);
    held(await open(ip()));
    sockets[0]!.close(1000, "done");
    let again = await open(client);
    for (const end = Date.now() + 20_000; again.status === 429 && Date.now() < end; again = await open(client))
      await new Promise((resolve) => setTimeout(resolve, 20));
    held(again);
    expect((await open(client)).status).toBe(429);
  });

  it("holds no cap with RATE_LIMITS off", async () => {
    const open = door({ RATE_LIMITS: "off", LIVE_SOCKETS_PER_IP: "1" });
    const client = ip();
    // More sockets than shards: some shard holds two of them.
    for (let i = 0; i < 20; i++) held(await open(client));
  });
});

describe("a subscriber's frame", () => {
  it("subscribes, unsubscribes and refuses as CometBFT does, with the reason in data", () => {
    const first = socketCall(call("subscribe", { query: "tm.event='NewBlock'" }), []);
    expect(first).toEqual({
      reply: '{"jsonrpc":"2.0","id":7,"result":{}}',
      subs: [{ id: "7", query: "tm.event='NewBlock'" }],
    });
    const subs = "subs" in first ? first.subs! : [];
    expect(refusal(call("subscribe", { query: "tm.event='NewBlock'" }), subs).data).toBe("already subscribed");
    expect(socketCall(call("unsubscribe", { query: "tm.event='NewBlock'" }), subs)).toMatchObject({ subs: [] });
    expect(refusal(call("unsubscribe_all"), []).data).toBe("subscription not found");
    const five = Array.from({ length: 5 }, (_, i) => ({ id: String(i), query: `tm.event='Tx' AND a.b = ${i}` }));
    expect(refusal(call("subscribe", { query: "tm.event='Tx'" }), five).data).toMatch(/max_subscriptions_per_client 5/);
    const long = (i: number) => ({ id: String(i), query: `tm.event='Tx' AND memo.text = '${String(i).repeat(440)}'` });
    expect(refusal(call("subscribe", { query: long(4).query }), [0, 1, 2, 3].map(long)).data).toMatch(/over 2 KiB/);
    expect(socketCall(call("subscribe", { query: long(3).query }), [0, 1, 2].map(long))).toHaveProperty("subs");
    expect(refusal(call("broadcast_tx_commit", { tx: "AA==" }))).toMatchObject({ code: -32601 });
    expect(refusal(call("subscribe", { query: "tm.event='NewRound'" }))).toMatchObject({ code: -32602 });
    expect(refusal("not json")).toMatchObject({ code: -32700 });
    expect(refusal(new ArrayBuffer(8))).toMatchObject({ code: -32600 });
    expect(refusal("x".repeat(64 * 1024 + 1)).data).toMatch(/at most 65536 bytes/);
    expect(refusal(JSON.stringify({ id: 1, method: "status" })).data).toMatch(/"jsonrpc":"2.0"/);
  });

  it("refuses a repeated query by its text, whatever the call's id", () => {
    const subs = [{ id: "7", query: "tm.event='NewBlock'" }];
    expect(refusal(call("subscribe", { query: "tm.event='NewBlock'" }, 8), subs).data).toBe("already subscribed");
    const other = socketCall(call("subscribe", { query: "tm.event='Tx'" }, 7), subs);
    expect(other).toMatchObject({ subs: [...subs, { id: "7", query: "tm.event='Tx'" }] });
  });

  it("judges a frame's length in UTF-8 bytes: 65,536 pass, one more is refused, whatever the characters", () => {
    const bytes = (text: string) => new TextEncoder().encode(text).length;
    /** A status call of exactly `size` bytes, padded with `filler` (then ASCII). */
    const sized = (size: number, filler: string) => {
      const room = size - bytes(call("status", { pad: "" }));
      const n = Math.floor(room / bytes(filler));
      return call("status", { pad: filler.repeat(n) + "a".repeat(room - n * bytes(filler)) });
    };
    for (const filler of ["€", "😀", "é", "a"]) {
      const fits = sized(65_536, filler);
      expect(bytes(fits)).toBe(65_536);
      expect(socketCall(fits, [])).toHaveProperty("read");
      const over = sized(65_537, filler);
      expect(refusal(over).data).toMatch(/at most 65536 bytes/);
    }
    // Three-byte characters: under the limit in UTF-16 units, over it in bytes.
    expect(sized(65_537, "€").length).toBeLessThan(65_536);
  });

  it("hands a read method to the cache as written", () => {
    const frame = call("block", { height: "5" });
    expect(socketCall(frame, [])).toEqual({ read: frame });
  });
});

/**
 * The live shard holds its sockets apart (docs/GATEWAY.md, "The live face"): a tag is looked up as
 * an event's own key only, so a query naming `constructor`, `__proto__` or `toString` subscribes and
 * never matches; a socket whose send fails is closed alone; each socket has a rate of frames. What
 * the shard keeps follows the live subscriptions, and "every height once" holds across its restarts.
 */
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { FrameBudget } from "../../src/gateway/live/frame-budget";
import { CLIENT_IP_HEADER, SHARD_NAME_HEADER } from "../../src/gateway/live/limits";
import { type ShardState, ShardSockets } from "../../src/gateway/live/shard-sockets";
import { freshShard, heightAt, openSocket, shardStub, type TestSocket, until } from "./live-shard-helpers";

describe("a tag named like an Object member", () => {
  it("subscribes, never matches, and costs the honest subscribers of its shard nothing", async () => {
    const name = freshShard();
    const honest = await Promise.all(Array.from({ length: 4 }, () => openSocket(name)));
    for (const socket of honest)
      expect((await socket.call("subscribe", { query: "tm.event='NewBlock'" })).result).toEqual({});
    const hostile = await Promise.all(Array.from({ length: 6 }, () => openSocket(name)));
    const tags = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf", "isPrototypeOf"];
    for (const [i, socket] of hostile.entries())
      expect((await socket.call("subscribe", { query: `tm.event='NewBlock' AND ${tags[i]} EXISTS` })).result).toEqual(
        {},
      );
    const shard = shardStub(name);
    for (const height of [5, 6, 7]) expect(await shard.deliver(await heightAt(height))).toBe(true);
    await until(() => honest.every((s) => s.heights().length === 3));
    for (const socket of honest) expect(socket.heights()).toEqual([5, 6, 7]);
    for (const socket of hostile) expect(socket.heights()).toEqual([]);
    // Their match never throws: they stay open, subscribed.
    for (const socket of hostile) expect(socket.closed).toBeNull();
    expect(await shard.state()).toMatchObject({ subscriptions: 10 });
  });
});

/** The `data` of each error frame a socket received, in order. */
const errorsOf = (socket: TestSocket) =>
  socket.frames.filter((f) => "error" in f).map((f) => (f.error as { code: number; data: string }).data);

describe("one socket's failure", () => {
  it("closes that socket alone, saying why: the others of its shard get every height", async () => {
    const name = freshShard();
    const broken = "192.0.2.66";
    const sockets = [
      await openSocket(name, { [CLIENT_IP_HEADER]: broken }),
      await openSocket(name),
      await openSocket(name),
    ];
    for (const socket of sockets) await socket.call("subscribe", { query: "tm.event='NewBlock'" });
    const shard = shardStub(name);
    await shard.deliver(await heightAt(1));
    // One socket's subscription can no longer be matched: its query does not compile.
    await runInDurableObject(shard, (_, state: DurableObjectState) => {
      state.getWebSockets(broken)[0]!.serializeAttachment({ subs: [{ id: "1", query: "tm.event = ((" }] });
    });
    await shard.deliver(await heightAt(2));
    await shard.deliver(await heightAt(3));
    await until(() => sockets.slice(1).every((s) => s.heights().length === 3));
    for (const socket of sockets.slice(1)) expect(socket.heights()).toEqual([1, 2, 3]);
    await until(() => sockets[0]!.closed !== null);
    expect(sockets[0]!.closed).toEqual({ code: 1011, reason: "height 2 could not be delivered to this socket" });
  });
});

describe("the compiled queries", () => {
  it("follow the subscriptions: unsubscribe, unsubscribe_all, close and cancelAll drop what none holds", async () => {
    const name = freshShard();
    const shard = shardStub(name);
    const [a, b] = [await openSocket(name), await openSocket(name)];
    // 40 frames: within a socket's burst of 50.
    for (let i = 0; i < 20; i++) {
      await a.call("subscribe", { query: `tm.event='Tx' AND loop.i = ${i}` });
      await a.call("unsubscribe", { query: `tm.event='Tx' AND loop.i = ${i}` });
    }
    expect(await shard.state()).toMatchObject({ subscriptions: 0, queries: 0 });
    await a.call("subscribe", { query: "tm.event='NewBlock'" });
    await b.call("subscribe", { query: "tm.event='NewBlock'" });
    await b.call("subscribe", { query: "tm.event='Tx'" });
    expect(await shard.state()).toMatchObject({ subscriptions: 3, queries: 2 });
    await b.call("unsubscribe_all");
    expect(await shard.state()).toMatchObject({ subscriptions: 1, queries: 1 });
    await b.call("subscribe", { query: "tm.event='Tx'" });
    a.ws.close(1000, "done");
    await until(() => a.closed !== null);
    await untilState(shard, (s) => s.subscriptions === 1);
    expect(await shard.state()).toMatchObject({ subscriptions: 1, queries: 1 });
    await shard.cancelAll("a test");
    expect(await shard.state()).toMatchObject({ subscriptions: 0, queries: 0 });
    expect(errorsOf(b)).toEqual(["subscription was canceled (reason: a test)"]);
  });

  it("are counted again from the attachments when the object wakes", async () => {
    const name = freshShard();
    const shard = shardStub(name);
    const sockets = await Promise.all(Array.from({ length: 3 }, () => openSocket(name)));
    for (const [i, socket] of sockets.entries())
      await socket.call("subscribe", { query: `tm.event='Tx' AND n.i = ${i % 2}` });
    await shard.deliver(await heightAt(9));
    await evictDurableObject(shard);
    expect(await shard.state()).toMatchObject({ sockets: 3, subscriptions: 3, queries: 2, height: 9, joined: true });
  });
});

/** Polls the shard's state until `holds`. */
async function untilState(shard: ReturnType<typeof shardStub>, holds: (s: ShardState) => boolean): Promise<void> {
  const end = Date.now() + 20_000;
  while (!holds(await shard.state())) {
    if (Date.now() > end) throw new Error("state not reached before the deadline");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("every height once, across a restart of the shard", () => {
  it("never sends a height at or below the stored one, and cancels at a gap instead of skipping it", async () => {
    const name = freshShard();
    const shard = shardStub(name);
    const socket = await openSocket(name);
    await socket.call("subscribe", { query: "tm.event='NewBlock'" }, 41);
    for (const height of [10, 11]) expect(await shard.deliver(await heightAt(height))).toBe(true);
    await evictDurableObject(shard);
    // A feed on a lagging node sends again what the shard sent before its restart.
    for (const height of [10, 11, 12]) expect(await shard.deliver(await heightAt(height))).toBe(true);
    await until(() => socket.heights().length === 3);
    expect(socket.heights()).toEqual([10, 11, 12]);
    await evictDurableObject(shard);
    expect(await shard.deliver(await heightAt(14))).toBe(false);
    await until(() => errorsOf(socket).length === 1);
    expect(socket.frames.at(-1)).toEqual({
      jsonrpc: "2.0",
      id: 41,
      error: {
        code: -32000,
        message: "Server error",
        data: "subscription was canceled (reason: height 13 never reached this shard)",
      },
    });
    expect(socket.heights()).toEqual([10, 11, 12]);
    expect(await shard.state()).toMatchObject({ subscriptions: 0, height: null, joined: false });
  });

  it("starts a first subscriber from the next height it is given, whatever an earlier crowd saw", async () => {
    const name = freshShard();
    const shard = shardStub(name);
    const early = await openSocket(name);
    await early.call("subscribe", { query: "tm.event='NewBlock'" });
    await shard.deliver(await heightAt(30));
    await early.call("unsubscribe_all");
    expect(await shard.deliver(await heightAt(31))).toBe(false);
    const late = await openSocket(name);
    await late.call("subscribe", { query: "tm.event='NewBlock'" });
    for (const height of [50, 51]) expect(await shard.deliver(await heightAt(height))).toBe(true);
    await until(() => late.heights().length === 2);
    expect(late.heights()).toEqual([50, 51]);
    expect(errorsOf(late)).toEqual([]);
  });
});

describe("a socket's rate of frames", () => {
  it("refuses past 50 at once, unread, closes after 100 refused; the others go on", async () => {
    const name = freshShard();
    const shard = shardStub(name);
    const honest = await openSocket(name);
    await honest.call("subscribe", { query: "tm.event='NewBlock'" });
    const flood = await openSocket(name);
    for (let i = 0; i < 400; i++)
      flood.ws.send(i % 2 ? "not json" : JSON.stringify({ jsonrpc: "2.0", id: i, method: "unsubscribe_all" }));
    await shard.deliver(await heightAt(70));
    await until(() => flood.closed !== null);
    expect(flood.closed).toEqual({ code: 1008, reason: "100 frames over the rate" });
    const errors = flood.frames.map((f) => (f.error as { data: string }).data);
    // The burst is read (a refusal each: not JSON, or no subscription), then the rate refuses without reading.
    expect(errors.slice(0, 50).every((data) => !data.startsWith("rate limited"))).toBe(true);
    const limited = errors.filter((data) => data.startsWith("rate limited"));
    expect(limited.length).toBeGreaterThanOrEqual(100);
    expect(limited[0]).toMatch(/at most 20 frames a second, in bursts of 50/);
    expect(flood.frames.find((f) => (f.error as { data: string }).data.startsWith("rate limited"))).toMatchObject({
      id: null,
      error: { code: -32000 },
    });
    await shard.deliver(await heightAt(71));
    await until(() => honest.heights().length === 2);
    expect(honest.heights()).toEqual([70, 71]);
  });
});

describe("a socket's refusals", () => {
  const socket = () => ({}) as WebSocket;
  /** Verdicts of `count` frames, one every `everyMs` from `from`. */
  const send = (budget: FrameBudget, ws: WebSocket, count: number, everyMs: number, from: number) =>
    Array.from({ length: count }, (_, i) => budget.take(ws, from + i * everyMs));

  it("are not cleared by a frame read as the bucket refills: a flood at five times the rate is closed", () => {
    const [budget, ws] = [new FrameBudget(), socket()];
    expect(send(budget, ws, 50, 0, 0).every((v) => v === "read")).toBe(true);
    // 100 a second: one in five finds a token refilled, and is read; the 100th refusal closes.
    const verdicts = send(budget, ws, 125, 10, 10);
    const closed = verdicts.indexOf("close");
    expect(verdicts.slice(0, closed).filter((v) => v === "refuse").length).toBe(99);
    expect(verdicts.slice(0, closed).filter((v) => v === "read").length).toBe(24);
  });

  it("are cleared once the bucket is full again (a pause of 2.5 s), not before", () => {
    for (const [pauseMs, last] of [
      [2_500, "refuse"],
      [2_499, "close"],
    ] as const) {
      const [budget, ws] = [new FrameBudget(), socket()];
      send(budget, ws, 50, 0, 0);
      expect(send(budget, ws, 99, 0, 0).every((v) => v === "refuse")).toBe(true);
      const read = send(budget, ws, 50, 0, pauseMs).filter((v) => v === "read").length;
      expect(read).toBe(pauseMs === 2_500 ? 50 : 49);
      expect(budget.take(ws, pauseMs)).toBe(last);
    }
  });
});

describe("joining the feed", () => {
  it("refuses only the subscribes that waited on a join that failed, and the next subscribe joins again", async () => {
    const name = freshShard();
    await runInDurableObject(shardStub(name), async (_, state: DurableObjectState) => {
      // The feed as the shard reaches it over RPC: its first join fails after a while, the next ones succeed.
      const joins: string[] = [];
      let fail = true;
      let answer!: () => void;
      const answered = new Promise<void>((resolve) => (answer = resolve));
      const feed = {
        async join(shard: string) {
          joins.push(shard);
          await answered;
          if (fail) throw new Error("Network connection lost.");
        },
        async leave() {},
      };
      const shard = new ShardSockets(
        state,
        () => feed,
        async () => "",
        {},
      );
      const open = async (ip: string) => {
        const response = await shard.accept(
          new Request("https://edge.test/rpc/websocket", {
            headers: { [SHARD_NAME_HEADER]: name, [CLIENT_IP_HEADER]: ip },
          }),
        );
        const client = response.webSocket!;
        client.accept();
        const frames: Record<string, unknown>[] = [];
        client.addEventListener("message", (event) => {
          frames.push(JSON.parse(event.data as string));
        });
        return { server: state.getWebSockets(ip)[0]!, frames };
      };
      const [a, b] = [await open("198.51.100.1"), await open("198.51.100.2")];
      const subscribe = (id: number, query: string) =>
        JSON.stringify({ jsonrpc: "2.0", id, method: "subscribe", params: { query } });
      const first = shard.message(a.server, subscribe(1, "tm.event='NewBlock'"));
      const second = shard.message(b.server, subscribe(2, "tm.event='NewBlockHeader'"));
      answer();
      await Promise.all([first, second]);
      expect(joins).toEqual([name]);
      await until(() => a.frames.length === 1 && b.frames.length === 1);
      for (const { frames } of [a, b])
        expect((frames[0]!.error as { data: string }).data).toBe(
          "the network's live feed could not be reached; try again",
        );
      expect(shard.state()).toMatchObject({ subscriptions: 0, joined: false });
      fail = false;
      await shard.message(b.server, subscribe(3, "tm.event='NewBlock'"));
      expect(joins).toEqual([name, name]);
      expect(shard.state()).toMatchObject({ subscriptions: 1, joined: true });
      shard.deliver(await heightAt(5));
      await until(() => b.frames.length === 3);
      expect(b.frames[1]).toEqual({ jsonrpc: "2.0", id: 3, result: {} });
      expect(b.frames[2]).toMatchObject({ id: 3, result: { query: "tm.event='NewBlock'" } });
    });
  });
});

describe("a read on a socket", () => {
  it("is answered by the RPC face's own checks, with the caller's id", async () => {
    const socket = await openSocket(freshShard());
    const refused = await socket.call("abci_query", { path: "/cosmos.gov.v1.Query/Proposals", data: "" }, "r1");
    expect(refused).toMatchObject({ id: "r1", error: { code: -32602 } });
    expect((await socket.call("block", { height: "-3" }, 8)).error).toMatchObject({ code: -32602 });
  });
});

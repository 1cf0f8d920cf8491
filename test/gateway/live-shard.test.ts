/**
 * The live shard holds its sockets apart (docs/GATEWAY.md, "The live face"): a tag is looked up as
 * an event's own key only, so a query naming `constructor`, `__proto__` or `toString` subscribes and
 * never matches, and the honest subscribers of the same shard still get every height.
 */
import { describe, expect, it } from "vitest";
import { freshShard, heightAt, openSocket, shardStub, until } from "./live-shard-helpers";

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
  });
});

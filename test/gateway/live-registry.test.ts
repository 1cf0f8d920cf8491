/**
 * The live feed's deliveries to its shards (docs/GATEWAY.md, "Every height, in order, once"): a
 * height a shard does not take is tried again, three tries in all, before its later heights go out;
 * past them the shard's subscriptions are cancelled with the reason; one shard never waits on
 * another; a shard that says it holds nobody is forgotten unless it joined again meanwhile.
 */
import { describe, expect, it } from "vitest";
import type { HeightEvents } from "../../src/gateway/live/block-events";
import { FeedRegistry } from "../../src/gateway/live/feed-registry";

const batch = (height: number): HeightEvents => ({ height, events: [] });

function registry(shards: string[], deliver: (shard: string, height: number, attempt: number) => Promise<boolean>) {
  const received: Record<string, number[]> = {};
  const cancelled: Record<string, string[]> = {};
  const attempts = new Map<string, number>();
  const reg = new FeedRegistry(
    {
      deliver: async (shard, b) => {
        const key = `${shard}:${b.height}`;
        const attempt = (attempts.get(key) ?? 0) + 1;
        attempts.set(key, attempt);
        const held = await deliver(shard, b.height, attempt);
        (received[shard] ??= []).push(b.height);
        return held;
      },
      cancelAll: async (shard, reason) => void (cancelled[shard] ??= []).push(reason),
      heightPushed: async () => undefined,
      feedLost: async () => undefined,
      pause: async () => undefined,
    },
    { put: () => undefined },
    new Set(shards),
    new Set(),
  );
  return { reg, received, cancelled, attempts };
}

describe("the live feed's deliveries", () => {
  it("tries a refused height again, and the later heights wait behind it for that shard alone", async () => {
    const { reg, received, cancelled, attempts } = registry(["a", "b"], async (shard, height, attempt) => {
      if (shard === "a" && height === 2 && attempt < 3) throw new Error("shard a: connection reset");
      return true;
    });
    for (const h of [1, 2, 3]) reg.publish(batch(h));
    await reg.settled();
    expect(attempts.get("a:2")).toBe(3);
    expect(received.a).toEqual([1, 2, 3]);
    expect(received.b).toEqual([1, 2, 3]);
    expect(cancelled).toEqual({});
  });

  it("cancels a shard's subscriptions after three refused tries, and goes on with the next heights", async () => {
    const { reg, received, cancelled, attempts } = registry(["a", "b"], async (shard, height) => {
      if (shard === "a" && height === 2) throw new Error("shard a: overloaded");
      return true;
    });
    for (const h of [1, 2, 3]) reg.publish(batch(h));
    await reg.settled();
    expect(attempts.get("a:2")).toBe(3);
    expect(cancelled.a).toEqual(["height 2 could not be delivered after 3 tries"]);
    expect(received.a).toEqual([1, 3]);
    expect(received.b).toEqual([1, 2, 3]);
  });

  it("forgets a shard that holds nobody, but not one that joined again while the answer was on its way", async () => {
    let rejoin: (() => void) | null = null;
    const { reg } = registry(["a", "b"], async (shard) => {
      if (shard === "b") rejoin?.();
      return false;
    });
    rejoin = () => reg.join("b");
    reg.publish(batch(1));
    await reg.settled();
    expect(reg.counts().shards).toBe(1);
    reg.publish(batch(2));
    await reg.settled();
    // b joined again during its delivery of 1 and of 2: it stays; a was forgotten after 1.
    expect(reg.counts().shards).toBe(1);
    rejoin = null;
    reg.publish(batch(3));
    await reg.settled();
    expect(reg.counts().shards).toBe(0);
  });
});

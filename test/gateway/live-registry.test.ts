/**
 * The live feed's deliveries to its shards (docs/GATEWAY.md, "Every height, in order, once"): a
 * delivery a shard rejects is tried again, in order, up to four tries, while later heights wait
 * behind it for that shard only; after the fourth, that shard's subscriptions are cancelled with
 * the reason and it is forgotten. Real Durable Object storage; the shards are the feed's RPC
 * neighbours, played here by objects that take or reject what they are sent.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import type { LiveFeed } from "../../durable-objects/live/LiveFeed";
import type { HeightEvents } from "../../src/gateway/live/block-events";
import { FeedRegistry, type ShardLink } from "../../src/gateway/live/feed-registry";

/** Tries of one delivery to one shard before its subscriptions are cancelled (docs/GATEWAY.md). */
const DELIVERY_TRIES = 4;

const feeds = (env as unknown as { LIVE_FEEDS: DurableObjectNamespace<LiveFeed> }).LIVE_FEEDS;
const withStorage = <T>(body: (storage: DurableObjectStorage) => Promise<T>) =>
  runInDurableObject(feeds.get(feeds.idFromName(`registry-${crypto.randomUUID()}`)), (_feed, state) =>
    body(state.storage),
  );

const height = (h: number): HeightEvents => ({ height: h, events: [] });

/** A shard that rejects its first `rejects` deliveries (throws, as an RPC to an object that failed does). */
function shard(rejects = 0) {
  const got: number[] = [];
  const cancels: string[] = [];
  let tries = 0;
  const link: ShardLink = {
    deliver(batch) {
      tries++;
      if (tries <= rejects) throw new Error("the shard's object failed");
      got.push(batch.height);
      return true;
    },
    cancelAll(reason) {
      cancels.push(reason);
    },
  };
  return { link, got, cancels, tries: () => tries };
}

function registry(storage: DurableObjectStorage, shards: Record<string, ReturnType<typeof shard>>) {
  const pauses: (() => void)[] = [];
  const feed = new FeedRegistry(storage, {
    shard: (name) => shards[name]!.link,
    follower: () => {
      throw new Error("no follower here");
    },
    // Each pause waits until the test lets it go.
    pause: () => new Promise<void>((resolve) => pauses.push(resolve)),
  });
  const release = async () => {
    while (pauses.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    pauses.shift()!();
  };
  return { feed, release, pending: () => pauses.length };
}

describe("the feed's deliveries to shards", () => {
  it("tries a rejected height again, in order, while the other shards go on without waiting", () =>
    withStorage(async (storage) => {
      const shards = { a: shard(2), b: shard() };
      const { feed, release } = registry(storage, shards);
      await feed.join("a");
      await feed.join("b");
      for (const h of [1, 2, 3]) feed.deliver(height(h));
      // b has every height while a still waits to try height 1 again.
      await vi.waitFor(() => expect(shards.b.got).toEqual([1, 2, 3]));
      expect(shards.a.got).toEqual([]);
      await release();
      await release();
      await vi.waitFor(() => expect(shards.a.got).toEqual([1, 2, 3]));
      expect(shards.a.cancels).toEqual([]);
      expect(feed.counts().shards).toBe(2);
    }));

  it(`after ${DELIVERY_TRIES} rejected tries, cancels that shard's subscriptions with the reason and forgets it`, () =>
    withStorage(async (storage) => {
      const shards = { a: shard(Infinity), b: shard() };
      const { feed, release } = registry(storage, shards);
      await feed.join("a");
      await feed.join("b");
      feed.deliver(height(7));
      feed.deliver(height(8));
      for (let pause = 1; pause < DELIVERY_TRIES; pause++) await release();
      await vi.waitFor(() => expect(shards.a.cancels).toEqual(["the edge could not deliver height 7 after 4 tries"]));
      await vi.waitFor(() => expect(feed.counts().shards).toBe(1));
      expect(shards.a.tries()).toBe(DELIVERY_TRIES);
      // Height 8 was not sent to the shard forgotten; the stored registry forgot it too.
      feed.deliver(height(9));
      await vi.waitFor(() => expect(shards.b.got).toEqual([7, 8, 9]));
      expect(shards.a.tries()).toBe(DELIVERY_TRIES);
      expect(await storage.get("shards")).toEqual(["b"]);
    }));

  it("forgets a shard that answers it holds nobody, and joining again is harmless", () =>
    withStorage(async (storage) => {
      const empty = shard();
      empty.link.deliver = () => false;
      const { feed } = registry(storage, { a: empty });
      await feed.join("a");
      await feed.join("a");
      expect(feed.counts().shards).toBe(1);
      feed.deliver(height(1));
      await vi.waitFor(() => expect(feed.counts().shards).toBe(0));
    }));
});

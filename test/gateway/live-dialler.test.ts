/**
 * The live feed's dialler against the devnet's CometBFT `/websocket`, two mounts playing two nodes
 * (docs/GATEWAY.md, "One connection while the node is healthy"): a node that sends frames but no
 * new height for 30 s is left for the next node; on a node that is not the first, an earlier node
 * whose `status` is past the last height sent is taken back; either way the listener hears that the
 * socket it relied on is gone.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { LiveFeed } from "../../durable-objects/live/LiveFeed";
import { FeedDialler } from "../../src/gateway/live/feed-dialler";
import { clockTo, DEVNET } from "../onboardings/helpers";
import { lastUpstreamHeaders } from "./helpers";

/** A node with frames but no new height for this long is left (docs/GATEWAY.md). */
const LAGGING_NODE_MS = 30_000;

const feeds = (env as unknown as { LIVE_FEEDS: DurableObjectNamespace<LiveFeed> }).LIVE_FEEDS;
const nodes = [`${DEVNET}/~dial-a/rpc`, `${DEVNET}/~dial-b/rpc`];

afterEach(() => vi.useRealTimers());

/** Runs `body` with a dialler on the two nodes, inside a Durable Object of its own; closes it after. */
function withDialler(
  body: (dialler: FeedDialler, seen: { blocks: number; lost: number }) => Promise<void>,
  upstreamAuthHeader: [string, string] | null = null,
) {
  return runInDurableObject(feeds.get(feeds.idFromName(`dial-${crypto.randomUUID()}`)), async () => {
    const seen = { blocks: 0, lost: 0 };
    const dialler = new FeedDialler(
      { rpcUpstreamUrls: nodes, upstreamAuthHeader, upstreamTimeoutMs: 2_000 },
      { block: () => seen.blocks++, lost: () => seen.lost++, wanted: () => true },
    );
    try {
      await body(dialler, seen);
    } finally {
      dialler.close();
    }
  });
}

describe("the feed's dialler", () => {
  it("leaves a node that sends frames but no new height for 30 s for the next node", () =>
    withDialler(async (dialler, seen) => {
      await dialler.dial();
      expect(dialler.node).toBe(nodes[0]);
      await vi.waitFor(() => expect(seen.blocks).toBeGreaterThan(0), { timeout: 10_000 });
      // Every height the node sends is one already sent (nothing calls `progressed`), and 30 s pass.
      clockTo(Date.now() + LAGGING_NODE_MS + 1_000);
      const frames = seen.blocks;
      await vi.waitFor(() => expect(seen.blocks).toBeGreaterThan(frames), { timeout: 10_000 });
      await dialler.watch(null);
      expect(dialler.node).toBe(nodes[1]);
      expect(seen.lost).toBe(1);
    }));

  it("keeps a node whose heights are new", () =>
    withDialler(async (dialler, seen) => {
      await dialler.dial();
      await vi.waitFor(() => expect(seen.blocks).toBeGreaterThan(0), { timeout: 10_000 });
      clockTo(Date.now() + LAGGING_NODE_MS + 1_000);
      const frames = seen.blocks;
      await vi.waitFor(() => expect(seen.blocks).toBeGreaterThan(frames), { timeout: 10_000 });
      dialler.progressed();
      await dialler.watch(null);
      expect(dialler.node).toBe(nodes[0]);
      expect(seen.lost).toBe(0);
    }));

  it("on a node that is not the first, takes the first back once it is past the last height sent", () =>
    withDialler(async (dialler, seen) => {
      await dialler.dial(1);
      expect(dialler.node).toBe(nodes[1]);
      // The first node is ahead of height 1, the last one sent.
      await dialler.watch(1);
      expect(dialler.node).toBe(nodes[0]);
      expect(seen.lost).toBe(1);
      // Back on the first: nothing else to take back.
      await dialler.watch(1);
      expect(dialler.node).toBe(nodes[0]);
    }));

  it("stays on a node that is not the first while the earlier ones are not ahead", () =>
    withDialler(async (dialler) => {
      await dialler.dial(1);
      await dialler.watch(Number.MAX_SAFE_INTEGER);
      expect(dialler.node).toBe(nodes[1]);
      expect(dialler.node).toBe(nodes[1]);
    }));

  it("asks an earlier node's status with the node key (UPSTREAM_AUTH_HEADER), as it dials", () =>
    withDialler(
      async (dialler) => {
        await dialler.dial(1);
        await dialler.watch(Number.MAX_SAFE_INTEGER);
        expect((await lastUpstreamHeaders("~dial-a/rpc/status"))["x-node-key"]).toBe("dial-secret");
      },
      ["x-node-key", "dial-secret"],
    ));
});

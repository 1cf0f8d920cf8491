/**
 * The chain follower on push: while onboardings wait, the network's LiveFeed tells the follower each
 * height the node sends (and the last one every 2 s), so the follower reads no head while that socket
 * is up; with nothing told for 5 s it reads the head again. The follower counts as the feed's
 * subscriber only while it listens, so the feed's idle close still comes once it stops. Real Durable
 * Objects against the devnet's chain and its CometBFT `/websocket`; the head reads are made to fail
 * (503) so that a pass that read the head shows as a failure.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ChainFollower } from "../../durable-objects/onboardings/ChainFollower";
import type { LiveFeed } from "../../durable-objects/live/LiveFeed";
import type { Config } from "../../src/config";
import { accountAddress, clockTo, DEVNET } from "../onboardings/helpers";

/** With nothing told for this long the follower reads the head (docs/GATEWAY.md). */
const PUSH_STALE_MS = 5_000;
/** The feed's upstream closes within this after its last subscriber leaves (docs/GATEWAY.md). */
const IDLE_CLOSE_BOUND_MS = 60_000;

const bindings = env as unknown as {
  CHAIN_FOLLOWERS: DurableObjectNamespace<ChainFollower>;
  LIVE_FEEDS: DurableObjectNamespace<LiveFeed>;
};
const followers = bindings.CHAIN_FOLLOWERS;
const feeds = bindings.LIVE_FEEDS;
const newFollower = (name: string) => followers.get(followers.idFromName(name));
type Stub = ReturnType<typeof newFollower>;

const cursorOf = async (stub: Stub) => (await stub.status()).cursor;
const alarmOf = (stub: Stub | ReturnType<typeof feeds.get>) =>
  runInDurableObject(stub, (_instance, state) => state.storage.getAlarm());
const devnetHeight = async () =>
  ((await (await fetch(`${DEVNET}/__devnet/status`)).json()) as { height: number }).height;

const faults: number[] = [];
/** Every node answers the latest block with 503 until the test ends. */
async function headReadsFail(): Promise<void> {
  const spec = { prefix: "/cosmos/base/tendermint/v1beta1/blocks/latest", status: 503 };
  const response = await fetch(`${DEVNET}/__devnet/faults`, { method: "POST", body: JSON.stringify(spec) });
  faults.push(((await response.json()) as { id: number }).id);
}
afterEach(async () => {
  vi.useRealTimers();
  for (const id of faults.splice(0)) await fetch(`${DEVNET}/__devnet/faults/${id}`, { method: "DELETE" });
});

/** A follower of its own with one onboarding waiting, following, and no pass under way or due. */
async function following(): Promise<Stub> {
  const stub = newFollower(`push-${crypto.randomUUID()}`);
  await stub.watch("ob_push", [accountAddress()]);
  await runInDurableObject(stub, async (instance, state) => {
    await instance.alarm();
    await state.storage.deleteAlarm();
  });
  expect(await cursorOf(stub)).toMatchObject({ following: true, failures: 0 });
  return stub;
}

/** A LiveFeed of its own whose node is the devnet's CometBFT face (the suite configures no RPC node). */
async function feedOnDevnet() {
  const feed = feeds.get(feeds.idFromName(`push-${crypto.randomUUID()}`));
  await runInDurableObject(feed, (instance) => {
    const held = instance as unknown as { config: Config };
    held.config = { ...held.config, rpcUpstreamUrls: [`${DEVNET}/~push/rpc`] };
  });
  return feed;
}

describe("the chain follower on push", () => {
  it("takes each height from the feed's socket, no head read, and the feed closes once it stops", async () => {
    const stub = await following();
    const feed = await feedOnDevnet();
    await headReadsFail();
    const from = await devnetHeight();
    await feed.follow(stub.id.toString(), true);
    expect((await feed.state()).followers).toBe(1);
    // The devnet makes a block every 200 ms: a few must reach the follower through the feed alone.
    await vi.waitFor(async () => expect((await cursorOf(stub)).readThrough).toBeGreaterThanOrEqual(from + 3), {
      timeout: 30_000,
      interval: 100,
    });
    // Any head read in between would have failed (503) and counted.
    expect(await cursorOf(stub)).toMatchObject({ following: true, failures: 0 });
    // The alarm is only the watchdog now: not the 1 s head read.
    expect(await alarmOf(stub)).toBeGreaterThan(Date.now() + 1_000);

    const before = Date.now();
    await feed.follow(stub.id.toString(), false);
    expect(await feed.state()).toMatchObject({ followers: 0, shards: 0 });
    const due = (await alarmOf(feed))!;
    expect(due).toBeGreaterThan(before);
    expect(due).toBeLessThanOrEqual(Date.now() + IDLE_CLOSE_BOUND_MS);
    expect(await runDurableObjectAlarm(feed)).toBe(true);
    expect(await feed.state()).toMatchObject({ upstream: null, height: null });
  });

  it("reads the head again once nothing was told for 5 s (the feed's socket down or quiet)", async () => {
    const stub = await following();
    await headReadsFail();
    await stub.heightPushed(await devnetHeight());
    await runInDurableObject(stub, (_instance, state) => state.storage.deleteAlarm());
    expect(await cursorOf(stub)).toMatchObject({ following: true, failures: 0 });

    clockTo(Date.now() + PUSH_STALE_MS + 100);
    await runInDurableObject(stub, (instance) => instance.alarm());
    // The pass read the head, which failed; the next pass is a second later, as without a feed.
    expect((await cursorOf(stub)).failures).toBe(1);
    const due = (await alarmOf(stub))!;
    expect(due).toBeLessThanOrEqual(Date.now() + 1_000);
  });

  it("reads the head at once when the feed lost its socket, not only once 5 s passed without a height", async () => {
    const stub = await following();
    await headReadsFail();
    await stub.heightPushed(await devnetHeight());
    await runInDurableObject(stub, (_instance, state) => state.storage.deleteAlarm());
    expect(await cursorOf(stub)).toMatchObject({ following: true, failures: 0 });
    await stub.feedLost();
    // The pass read the head (which failed) with the clock where it was; the next pass is a second later.
    expect((await cursorOf(stub)).failures).toBe(1);
    expect((await alarmOf(stub))!).toBeLessThanOrEqual(Date.now() + 1_000);
  });

  it("tells its follower when it closes a silent socket: the last height told is no longer the head", async () => {
    const stub = await following();
    const feed = await feedOnDevnet();
    await feed.follow(stub.id.toString(), true);
    const pushedOf = () =>
      runInDurableObject(stub, (instance) => (instance as unknown as { pushed: unknown }).pushed ?? null);
    await vi.waitFor(async () => expect(await pushedOf()).not.toBeNull(), { timeout: 30_000, interval: 100 });
    await runInDurableObject(feed, (instance) => {
      const held = instance as unknown as { config: Config; lastFrameAt: number };
      // Nothing heard for longer than the watchdog allows, and no node to dial again (nothing listens on port 9).
      held.lastFrameAt = 0;
      held.config = { ...held.config, rpcUpstreamUrls: ["http://127.0.0.1:9/rpc"] };
    });
    expect(await runDurableObjectAlarm(feed)).toBe(true);
    expect((await feed.state()).upstream).toBeNull();
    await vi.waitFor(async () => expect(await pushedOf()).toBeNull(), { timeout: 30_000, interval: 100 });
    await feed.follow(stub.id.toString(), false);
  });

  it("listens only where an RPC node is configured, and only while an onboarding waits", async () => {
    for (const rpcUpstreamUrls of [[], [`${DEVNET}/~push/rpc`]]) {
      const chainId = `push-${crypto.randomUUID()}`;
      const stub = newFollower(chainId);
      await runInDurableObject(stub, (instance) => {
        const held = instance as unknown as { config: Config };
        held.config = { ...held.config, chainId, rpcUpstreamUrls };
      });
      await stub.watch("ob_push", [accountAddress()]);
      await runInDurableObject(stub, (instance) => instance.alarm());
      const feed = feeds.get(feeds.idFromName(chainId));
      expect((await feed.state()).followers).toBe(rpcUpstreamUrls.length);
      await stub.unwatch("ob_push");
      await runInDurableObject(stub, (instance) => instance.alarm());
      expect((await feed.state()).followers).toBe(0);
    }
  });
});

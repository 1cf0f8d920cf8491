/**
 * The chain follower on push: while onboardings wait, the network's LiveFeed tells the follower each
 * height the node sends with the time it was new (and, as its heartbeat, the last one with that same
 * time), so the follower reads no head while heights come; once the last height told is 15 s old, or
 * the feed says it lost its socket, it reads the head again. The follower counts as the feed's
 * subscriber only while it listens, so the feed's idle close still comes once it stops. Real Durable
 * Objects against the devnet's chain; the head reads are made to fail (503) so that a pass that read
 * the head shows as a failure. The feed's side (its socket, its heartbeat) is tested in
 * test/gateway/live-dialler.test.ts and from outside in test/e2e/live-upstream.test.ts.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ChainFollower } from "../../durable-objects/onboardings/ChainFollower";
import type { LiveFeed } from "../../durable-objects/live/LiveFeed";
import { accountAddress, clockTo, DEVNET } from "../onboardings/helpers";

/** Once the last height told was new this long ago the follower reads the head (docs/GATEWAY.md). */
const PUSH_STALE_MS = 15_000;
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

describe("the chain follower on push", () => {
  it("takes each height told, no head read, and the feed closes once it stops listening", async () => {
    const stub = await following();
    await headReadsFail();
    const head = await devnetHeight();
    // What the feed does for each new height the node sends: tells it, with the time it was new.
    for (let height = head - 3; height <= head; height++) await stub.heightPushed(height, Date.now());
    expect((await cursorOf(stub)).readThrough).toBe(head);
    // Any head read in between would have failed (503) and counted.
    expect(await cursorOf(stub)).toMatchObject({ following: true, failures: 0 });
    // The alarm is only the watchdog now: not the 1 s head read.
    expect(await alarmOf(stub)).toBeGreaterThan(Date.now() + 1_000);

    const feed = feeds.get(feeds.idFromName(`push-${crypto.randomUUID()}`));
    await feed.follow(stub.id.toString(), true);
    expect((await feed.state()).followers).toBe(1);
    // A listening follower keeps the feed awake: its watchdog runs and sets the next round.
    expect(await runDurableObjectAlarm(feed)).toBe(true);
    expect(await alarmOf(feed)).not.toBeNull();
    const before = Date.now();
    await feed.follow(stub.id.toString(), false);
    expect(await feed.state()).toMatchObject({ followers: 0, shards: 0 });
    const due = (await alarmOf(feed))!;
    expect(due).toBeGreaterThan(before);
    expect(due).toBeLessThanOrEqual(Date.now() + IDLE_CLOSE_BOUND_MS);
    expect(await runDurableObjectAlarm(feed)).toBe(true);
    expect(await feed.state()).toMatchObject({ upstream: null, height: null });
  });

  it("reads the head again once the last height told is 15 s old (the feed's socket down or quiet)", async () => {
    const stub = await following();
    await headReadsFail();
    await stub.heightPushed(await devnetHeight(), Date.now());
    await runInDurableObject(stub, (_instance, state) => state.storage.deleteAlarm());
    expect(await cursorOf(stub)).toMatchObject({ following: true, failures: 0 });

    clockTo(Date.now() + PUSH_STALE_MS + 100);
    await runInDurableObject(stub, (instance) => instance.alarm());
    // The pass read the head, which failed; the next pass is a second later, as without a feed.
    expect((await cursorOf(stub)).failures).toBe(1);
    const due = (await alarmOf(stub))!;
    expect(due).toBeLessThanOrEqual(Date.now() + 1_000);
  });

  it("counts a height's age from when it was new: a heartbeat telling an old height again is no head", async () => {
    const stub = await following();
    await headReadsFail();
    const height = await devnetHeight();
    await stub.heightPushed(height, Date.now());
    expect(await cursorOf(stub)).toMatchObject({ following: true, failures: 0 });
    // The feed's node stopped moving: its heartbeat tells the same height, new more than 15 s ago.
    clockTo(Date.now() + PUSH_STALE_MS + 100);
    await stub.heightPushed(height, Date.now() - PUSH_STALE_MS - 100);
    await runInDurableObject(stub, (instance) => instance.alarm());
    expect((await cursorOf(stub)).failures).toBeGreaterThan(0);
  });

  it("never takes a height below one already told for the head", async () => {
    const stub = await following();
    await headReadsFail();
    const height = await devnetHeight();
    await stub.heightPushed(height, Date.now() - PUSH_STALE_MS - 100);
    // A lower height, told as new (a feed on a lagging node): the head is still read, and fails.
    await stub.heightPushed(height - 5, Date.now());
    await runInDurableObject(stub, (instance) => instance.alarm());
    expect((await cursorOf(stub)).failures).toBeGreaterThan(0);
  });

  it("reads the head at once when the feed lost its socket, not only once 15 s passed without a height", async () => {
    const stub = await following();
    await headReadsFail();
    await stub.heightPushed(await devnetHeight(), Date.now());
    await runInDurableObject(stub, (_instance, state) => state.storage.deleteAlarm());
    expect(await cursorOf(stub)).toMatchObject({ following: true, failures: 0 });
    await stub.feedLost();
    // The pass read the head (which failed) with the clock where it was; the next pass is a second later.
    expect((await cursorOf(stub)).failures).toBe(1);
    expect((await alarmOf(stub))!).toBeLessThanOrEqual(Date.now() + 1_000);
  });

  it("listens to the network's feed only while an onboarding waits", async () => {
    const chainId = (env as unknown as { CHAIN_ID: string }).CHAIN_ID;
    const stub = newFollower(chainId);
    const feed = feeds.get(feeds.idFromName(chainId));
    await stub.watch("ob_push", [accountAddress()]);
    await runInDurableObject(stub, (instance) => instance.alarm());
    expect((await feed.state()).followers).toBe(1);
    await stub.unwatch("ob_push");
    await runInDurableObject(stub, (instance) => instance.alarm());
    expect((await feed.state()).followers).toBe(0);
  });
});

/**
 * Registrations with the chain follower are leases, so nothing an onboarding fails to say keeps the
 * follower reading the chain: an `unwatch` that did not get through is owed in the onboarding's
 * stored state and retried from its alarm; a registration not renewed within 30 minutes is
 * dropped; an onboarding answers each hint with whether it still waits. With the last registration
 * gone the follower sleeps: no alarm, no read of the head. Real Durable Objects, the devnet's chain.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ChainFollower } from "../../durable-objects/onboardings/ChainFollower";
import type { OnboardingState } from "../../src/onboardings/state";
import {
  accountAddress,
  authorizeOnChain,
  clockTo,
  config,
  createOnboarding,
  DEVNET,
  hostPost,
  onboardingStub,
  page,
  settle,
} from "../onboardings/helpers";

/** A registration not renewed for 30 minutes is dropped (docs/ARCHITECTURE.md). */
const FOLLOW_LEASE_MS = 30 * 60_000;

const followers = (env as unknown as { CHAIN_FOLLOWERS: DurableObjectNamespace<ChainFollower> }).CHAIN_FOLLOWERS;
const network = () => followers.get(followers.idFromName(config.chainId));
const follower = () => followers.get(followers.idFromName(`lease-${crypto.randomUUID()}`));
type Stub = ReturnType<typeof follower>;

afterEach(() => vi.useRealTimers());

const alarmOf = (stub: Stub) => runInDurableObject(stub, (_f, state) => state.storage.getAlarm());
const registrations = (stub: Stub) =>
  runInDurableObject(stub, async (_f, state) => [...(await state.storage.list({ prefix: "w:" })).keys()]);
const stateOf = (id: string) =>
  runInDurableObject(onboardingStub(id), async (_o, state) => (await state.storage.get<OnboardingState>("state"))!);
/** How often the nodes were asked for the latest block. */
async function headReads(): Promise<number> {
  let count = 0;
  for (const tag of ["node-1", "node-2"]) {
    const url = `${DEVNET}/__devnet/requests?prefix=~${tag}/cosmos/base/tendermint/v1beta1/blocks/latest`;
    count += ((await (await fetch(url)).json()) as { count: number }).count;
  }
  return count;
}

/** An onboarding paired with a fresh payout, waiting for its authorization, registered with the network's follower. */
async function waiting(): Promise<{ id: string; operator: string; payout: string }> {
  const [operator, payout] = [accountAddress(), accountAddress()];
  const { id } = await createOnboarding({ operator });
  expect((await page.payout(id, { source: "in_app", address: payout })).status).toBe(200);
  await settle(id);
  return { id, operator, payout };
}

/** The follower's `unwatch` throws, as one that cannot be reached would, until the returned restore. */
async function unwatchFails(stub: Stub): Promise<() => Promise<void>> {
  await runInDurableObject(stub, (instance) => {
    const proto = Object.getPrototypeOf(instance) as Record<string, unknown>;
    proto.realUnwatch ??= proto.unwatch;
    proto.unwatch = async () => {
      throw new Error("the follower cannot be reached");
    };
  });
  return () =>
    runInDurableObject(stub, (instance) => {
      const proto = Object.getPrototypeOf(instance) as Record<string, unknown>;
      proto.unwatch = proto.realUnwatch;
    });
}

describe("registrations with the chain follower are leases", () => {
  it(
    "sleeps once nothing waits, also when the unwatch " +
      "failed: the onboarding owes it and retries it from its alarm",
    async () => {
      const o = await waiting();
      await runDurableObjectAlarm(network());
      expect(await registrations(network())).toEqual([`w:${o.id}`]);

      const restore = await unwatchFails(network());
      expect((await hostPost(`/${o.id}/cancel`, "")).status).toBe(200);
      await settle(o.id);
      await restore();
      // The unwatch did not get through: the follower still holds the registration, the onboarding owes it.
      expect(await registrations(network())).toEqual([`w:${o.id}`]);
      const owed = (await stateOf(o.id)).watch;
      expect(owed).toMatchObject({ registered: true, unfollow: { failures: 1 } });

      // Its alarm (within seconds) retries it; the follower's next pass finds nobody waiting and sleeps.
      expect(owed.unfollow!.at - Date.now()).toBeLessThanOrEqual(5_000);
      const alarm = await runInDurableObject(onboardingStub(o.id), (_o, state) => state.storage.getAlarm());
      expect(alarm).toBeLessThanOrEqual(owed.unfollow!.at);
      clockTo(owed.unfollow!.at);
      await runDurableObjectAlarm(onboardingStub(o.id));
      expect((await stateOf(o.id)).watch).toMatchObject({ registered: false, unfollow: null });
      expect(await registrations(network())).toEqual([]);
      await runDurableObjectAlarm(network());
      expect(await alarmOf(network())).toBeNull();
      const reads = await headReads();
      expect(await runDurableObjectAlarm(network())).toBe(false);
      expect(await headReads()).toBe(reads);
    },
  );

  it("drops a registration not renewed within the lease, and sleeps", async () => {
    const stub = follower();
    await stub.watch("ob_00000000000000000000000000000001", [accountAddress()]);
    await runDurableObjectAlarm(stub);
    expect(await alarmOf(stub)).not.toBeNull();
    clockTo(Date.now() + FOLLOW_LEASE_MS - 60_000);
    await runDurableObjectAlarm(stub);
    expect(await registrations(stub)).toHaveLength(1);
    clockTo(Date.now() + 60_000);
    await runDurableObjectAlarm(stub);
    expect(await registrations(stub)).toEqual([]);
    expect(await alarmOf(stub)).toBeNull();
  });

  it("drops an onboarding that answers a hint as no longer waiting, and renews one that still waits", async () => {
    const [still, ended] = [await waiting(), await waiting()];
    expect((await hostPost(`/${ended.id}/cancel`, "")).status).toBe(200);
    await settle(ended.id);
    // A follower that never heard the unwatch (registered anew here), with both waiting as far as it knows.
    const stub = follower();
    await stub.watch(still.id, [still.payout]);
    await stub.watch(ended.id, [ended.payout]);
    await runDurableObjectAlarm(stub);
    const renewedBefore = await runInDurableObject(stub, (_f, state) =>
      state.storage.get<{ renewed_at: number }>(`w:${still.id}`),
    );
    clockTo(Date.now() + 1000);
    await authorizeOnChain(still.payout, still.operator);
    await authorizeOnChain(ended.payout, ended.operator);
    await runDurableObjectAlarm(stub);
    expect(await registrations(stub)).toEqual([`w:${still.id}`]);
    const renewed = await runInDurableObject(stub, (_f, state) =>
      state.storage.get<{ renewed_at: number }>(`w:${still.id}`),
    );
    expect(renewed!.renewed_at).toBeGreaterThan(renewedBefore!.renewed_at);
  });
});

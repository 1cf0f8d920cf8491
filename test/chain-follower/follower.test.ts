/**
 * The ChainFollower Durable Object against the devnet, through the deployment's upstreams, with
 * real onboardings created through the host API: a block wakes only the onboardings it names, a
 * jump wakes every one once, an onboarding's own check is the 10-minute safety net while the
 * follower follows and every ONBOARDING_CHECK_SECONDS while it fails; the follower sleeps when no
 * onboarding waits, reads missed blocks in order (a block it cannot read holds the ones after it
 * back), jumps to the head when too far behind, and fails open when it cannot read blocks (errors,
 * a node without the block endpoints). Tests of the follower alone use one of their own name; the
 * network's follower is read through its `status()` and set up through its storage and a restart,
 * never through its fields, and every test makes what it needs, so they pass in any order
 * (`npx vitest run --sequence.shuffle test/chain-follower/follower.test.ts`).
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ChainFollower } from "../../durable-objects/onboardings/ChainFollower";
import type { FollowerCursor } from "../../src/chain-follower/machine";
import type { OnboardingState } from "../../src/onboardings/state";
import { api } from "../helpers/sessions";
import {
  accountAddress,
  authorizeOnChain,
  config,
  createOnboarding,
  DEVNET,
  host,
  onboardingStub,
  page,
  readOnboarding,
  settle,
} from "../onboardings/helpers";

// The figures docs/ARCHITECTURE.md states, written out rather than imported, so a changed one fails.
/** More than 20 blocks behind, the follower jumps to the head. */
const MAX_CATCH_UP_BLOCKS = 20;
/** After 3 failed passes in a row it fails open. */
const FAIL_OPEN_AFTER = 3;
/** While it follows, an onboarding's own check is a safety net every 10 minutes. */
const SAFETY_NET_MS = 10 * 60_000;

const followers = (env as unknown as { CHAIN_FOLLOWERS: DurableObjectNamespace<ChainFollower> }).CHAIN_FOLLOWERS;
const follower = () => followers.get(followers.idFromName(`test-${crypto.randomUUID()}`));
type Stub = ReturnType<typeof follower>;

const cursorOf = async (stub: Stub) => (await stub.status()).cursor;
/**
 * Puts the follower's stored cursor where a test needs it and restarts the object, as a crash would:
 * it starts again from what storage holds. The pass under way is let finish first and the alarm
 * removed, so no pass stores its own cursor over this one; the test's next `pass` is the first.
 * The stub that saw the restart is broken for good; the one answered reaches the new instance.
 */
async function setCursor(stub: Stub, cursor: Partial<FollowerCursor>): Promise<Stub> {
  await runInDurableObject(stub, async (instance, state) => {
    await instance.alarm();
    await state.storage.deleteAlarm();
    await state.storage.put("cursor", { ...(await instance.status()).cursor, ...cursor });
    // Durable before the restart: an abort drops the writes its output gate still holds.
    await state.storage.sync();
    state.abort("restart");
  }).catch(() => undefined);
  return followers.get(stub.id);
}
const alarmOf = (stub: Stub) => runInDurableObject(stub, (_instance, state) => state.storage.getAlarm());
/**
 * Runs one pass now. While the platform's alarm is running one no alarm is stored, so the test's joins it through
 * the object's own `alarm()`.
 */
const pass = async (stub: Stub) => {
  if (!(await runDurableObjectAlarm(stub))) await runInDurableObject(stub, (instance) => instance.alarm());
};
const devnetHeight = async () =>
  ((await (await fetch(`${DEVNET}/__devnet/status`)).json()) as { height: number }).height;

const faults: number[] = [];
async function fault(spec: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${DEVNET}/__devnet/faults`, { method: "POST", body: JSON.stringify(spec) });
  faults.push(((await response.json()) as { id: number }).id);
}
afterEach(async () => {
  vi.useRealTimers();
  for (const id of faults.splice(0)) await fetch(`${DEVNET}/__devnet/faults/${id}`, { method: "DELETE" });
});

/** A follower that has started and follows, with one onboarding waiting. */
async function running(): Promise<Stub> {
  const stub = follower();
  // A real onboarding that waits: a hint to one that does not (or does not exist) drops its registration.
  await stub.watch((await waiting()).id, [accountAddress()]);
  await pass(stub);
  expect(await cursorOf(stub)).toMatchObject({ following: true });
  return stub;
}

/** The network's own follower, which the onboardings register with. */
const network = () => followers.get(followers.idFromName(config.chainId));
const watchOf = (id: string) =>
  runInDurableObject(
    onboardingStub(id),
    async (_onboarding, state) => (await state.storage.get<OnboardingState>("state"))!.watch,
  );

/** An onboarding paired with a fresh payout, waiting for its authorization, registered with the follower. */
async function waiting(): Promise<{ id: string; operator: string; payout: string }> {
  const [operator, payout] = [accountAddress(), accountAddress()];
  const { id } = await createOnboarding({ operator });
  expect((await page.payout(id, { source: "in_app", address: payout })).status).toBe(200);
  await settle(id);
  return { id, operator, payout };
}

/** How often the nodes were asked for `payout`'s authorizations: once per read of that onboarding's state. */
async function readsOf(payout: string): Promise<number> {
  let count = 0;
  for (const tag of ["node-1", "node-2"]) {
    const seen = (await (
      await fetch(
        `${DEVNET}/__devnet/requests?prefix=~${tag}/${config.namespace}` +
          `/incentives/v1/operator_authorizations/${payout}`,
      )
    ).json()) as { count: number };
    count += seen.count;
  }
  return count;
}

/** The network's follower has read the latest blocks and every onboarding has done what that woke. */
async function followed(ids: string[]): Promise<void> {
  await pass(network());
  for (const id of ids) await settle(id);
}

/**
 * The network's follower has read through block `height`, then the onboardings `ids` did what it
 * woke: a pass joined while the platform's alarm ran may have begun before that block was the head.
 */
async function followedThrough(height: number, ids: string[]): Promise<void> {
  do await pass(network());
  while (((await cursorOf(network())).readThrough ?? 0) < height);
  for (const id of ids) await settle(id);
}

describe("the network's chain follower and the onboardings waiting", () => {
  it(
    "wakes only the onboardings a block names: the named one reads its state and moves on, the others read " +
      "nothing",
    async () => {
      const all = [await waiting(), await waiting(), await waiting()];
      await followed(all.map((o) => o.id));
      const before = await Promise.all(all.map((o) => readsOf(o.payout)));

      const [named, ...others] = all as [(typeof all)[0], ...typeof all];
      const included = Number((await authorizeOnChain(named.payout, named.operator)).height);
      await followedThrough(
        included,
        all.map((o) => o.id),
      );
      expect((await readOnboarding(named.id)).status).toBe("authorized");
      expect(await readsOf(named.payout)).toBeGreaterThan(before[0]!);
      for (const [i, o] of others.entries()) {
        expect((await readOnboarding(o.id)).status).toBe("connected");
        expect(await readsOf(o.payout)).toBe(before[i + 1]);
      }
    },
  );

  it(
    "keeps an onboarding's own check a 10-minute safety net while the follower follows, and every " +
      "ONBOARDING_CHECK_SECONDS while it cannot read blocks",
    async () => {
      // The network's follower follows (someone waits), so the onboarding's registration says so.
      // A real onboarding that waits: a hint to one that does not drops its registration.
      const keepalive = (await waiting()).id;
      await network().watch(keepalive, [accountAddress()]);
      await pass(network());
      const o = await waiting();
      const healthy = await watchOf(o.id);
      expect(healthy.following, "healthy").toBe(true);
      expect(healthy.next_check_at! - Date.now()).toBeGreaterThan(SAFETY_NET_MS / 2);

      await fault({ prefix: "/cosmos/base/tendermint/v1beta1/blocks/latest", status: 503 });
      // FAIL_OPEN_AFTER failed passes; a pass the platform's alarm had begun is joined, not counted twice.
      for (let n = 0; n < 3 * FAIL_OPEN_AFTER && (await watchOf(o.id)).following; n++) await followed([o.id]);
      const alone = await watchOf(o.id);
      expect(alone.following).toBe(false);
      expect(alone.next_check_at! - Date.now()).toBeLessThanOrEqual(config.onboardingCheckSeconds * 1000);

      await fetch(`${DEVNET}/__devnet/faults/${faults.pop()}`, { method: "DELETE" });
      await followed([o.id]);
      const again = await watchOf(o.id);
      expect(again.following, "again").toBe(true);
      expect(again.next_check_at! - Date.now()).toBeGreaterThan(SAFETY_NET_MS / 2);
      await network().unwatch(keepalive);
    },
  );

  it("wakes every waiting onboarding once when it jumps to the head", async () => {
    const all = [await waiting(), await waiting()];
    await followed(all.map((o) => o.id));
    const before = await Promise.all(all.map((o) => readsOf(o.payout)));
    await setCursor(network(), { readThrough: (await devnetHeight()) - MAX_CATCH_UP_BLOCKS - 10 });
    await followed(all.map((o) => o.id));
    for (const [i, o] of all.entries()) expect(await readsOf(o.payout)).toBeGreaterThan(before[i]!);
  });

  it("forgets an onboarding that stops waiting, and sleeps once none waits", async () => {
    const mine = [await waiting(), await waiting()].map((o) => o.id);
    const { waiting: ids } = await network().status();
    expect(ids).toEqual(expect.arrayContaining(mine));
    for (const id of ids) {
      // Those of other tests too (their onboardings, or a registration by hand): none may be left waiting.
      if (id.startsWith("ob_") && (await host(`/${id}`)).status === 200) {
        expect((await host(`/${id}/cancel`, { method: "POST" })).status).toBe(200);
        await settle(id);
      } else await network().unwatch(id);
    }
    expect((await network().status()).waiting).toEqual([]);
    await pass(network());
    expect(await alarmOf(network())).toBeNull();
  });
});

describe("the chain follower wakes and sleeps with the onboardings waiting", () => {
  it("sets its alarm when an onboarding waits, starts at the head, and sleeps (no alarm) once none does", async () => {
    const stub = follower();
    expect(await alarmOf(stub)).toBeNull();
    const before = await devnetHeight();
    expect(await stub.watch("ob_1", [accountAddress()])).toEqual({ following: false });
    expect(await alarmOf(stub)).not.toBeNull();
    await pass(stub);
    const started = await cursorOf(stub);
    expect(started).toMatchObject({ following: true, failures: 0 });
    expect(started.readThrough).toBeGreaterThanOrEqual(before);
    expect(await stub.watch("ob_1", [accountAddress()])).toEqual({ following: true });
    // A pass a second after the last one began, while someone waits.
    expect(await alarmOf(stub)).not.toBeNull();

    await stub.unwatch("ob_1");
    await pass(stub);
    expect(await alarmOf(stub)).toBeNull();
    expect(await cursorOf(stub)).toMatchObject({ readThrough: null, following: false });
  });

  it("asks for the latest block at most once a second while one waits: the next pass 1 s after one began", async () => {
    const stub = await running();
    // No pass under way and none due, so the pass below is the test's own.
    await runInDurableObject(stub, async (instance, state) => {
      await instance.alarm();
      await state.storage.deleteAlarm();
    });
    const before = Date.now();
    await runInDurableObject(stub, (instance) => instance.alarm());
    const after = Date.now();
    const due = (await alarmOf(stub))!;
    expect(due).toBeGreaterThanOrEqual(before + 1000);
    expect(due).toBeLessThanOrEqual(after + 1000);
  });
});

describe("the chain follower reads every block once, in order", () => {
  it("reads missed blocks in order: a block it cannot read holds back the ones after it until it can", async () => {
    let stub = await running();
    let head: number;
    let held: Awaited<ReturnType<typeof cursorOf>>;
    for (;;) {
      head = await devnetHeight();
      // Block head-3 cannot be read from any node (set before the restart, after which the platform's alarm may pass).
      await fault({ prefix: `/cosmos/tx/v1beta1/txs/block/${head - 3}?`, status: 503 });
      stub = await setCursor(stub, { readThrough: head - 5 });
      await pass(stub);
      held = await cursorOf(stub);
      // Blocks come every 200 ms: a loaded machine may let the chain run past the catch-up window before the
      // pass (the follower then rightly jumps to the head); only then is the run tried again from the new head.
      if (held.readThrough === head - 4 || (await devnetHeight()) < head - 5 + MAX_CATCH_UP_BLOCKS) break;
      await fetch(`${DEVNET}/__devnet/faults/${faults.pop()}`, { method: "DELETE" });
    }
    expect(held.readThrough).toBe(head - 4);
    expect(held.failures).toBeGreaterThan(0);

    await fetch(`${DEVNET}/__devnet/faults/${faults.pop()}`, { method: "DELETE" });
    await pass(stub);
    const caught = await cursorOf(stub);
    expect(caught.readThrough).toBeGreaterThanOrEqual(head);
    expect(caught.failures).toBe(0);
  });

  it(
    `jumps to the head when more than ${MAX_CATCH_UP_BLOCKS} blocks behind, reading none of those it ` + `skipped`,
    async () => {
      let stub = await running();
      const head = await devnetHeight();
      // Had it read the skipped blocks, this one would have stopped it.
      await fault({ prefix: `/cosmos/tx/v1beta1/txs/block/${head - MAX_CATCH_UP_BLOCKS - 5}?`, status: 503 });
      stub = await setCursor(stub, { readThrough: head - MAX_CATCH_UP_BLOCKS - 10 });
      await pass(stub);
      const jumped = await cursorOf(stub);
      expect(jumped.readThrough).toBeGreaterThanOrEqual(head);
      expect(jumped.failures).toBe(0);
    },
  );
});

describe("the chain follower fails open", () => {
  for (const [what, spec] of [
    ["every node failing on the latest block", { status: 503 }],
    ["a node without the block endpoints (404)", { status: 404 }],
  ] as const) {
    it(
      `stops claiming to follow after ${FAIL_OPEN_AFTER} failed passes: ${what}; follows again once blocks can be ` +
        `read`,
      async () => {
        const stub = await running();
        await fault({ prefix: "/cosmos/base/tendermint/v1beta1/blocks/latest", ...spec });
        for (let n = 1; n < FAIL_OPEN_AFTER; n++) {
          await pass(stub);
          expect(await cursorOf(stub)).toMatchObject({ following: true });
        }
        await pass(stub);
        expect(await cursorOf(stub)).toMatchObject({ following: false });
        expect(await stub.watch("ob_2", [accountAddress()])).toEqual({ following: false });

        await fetch(`${DEVNET}/__devnet/faults/${faults.pop()}`, { method: "DELETE" });
        await pass(stub);
        expect(await cursorOf(stub)).toMatchObject({ following: true, failures: 0 });
        expect(await stub.watch("ob_2", [accountAddress()])).toEqual({ following: true });
      },
    );
  }

  it("falls back to the transaction search on a node that does not serve blocks with their transactions", async () => {
    let stub = await running();
    const head = await devnetHeight();
    await fault({ prefix: "/cosmos/tx/v1beta1/txs/block/", status: 404 });
    stub = await setCursor(stub, { readThrough: head - 3 });
    await pass(stub);
    expect((await cursorOf(stub)).readThrough).toBeGreaterThanOrEqual(head);
    expect((await cursorOf(stub)).failures).toBe(0);
  });
});

describe("the chain follower on the transaction search", () => {
  it(
    "stays before a block the search does not show yet " + "(the index trails the head), and reads it once it does",
    async () => {
      let stub = follower();
      const payout = accountAddress();
      // A real onboarding that waits: a hint to one that does not drops its registration, and the follower sleeps.
      await stub.watch((await waiting()).id, [payout]);
      await pass(stub);
      const height = Number((await authorizeOnChain(payout, accountAddress())).height);
      await fault({ prefix: "/cosmos/tx/v1beta1/txs/block/", status: 404 });
      // The index has not caught up with the block: the search answers it empty.
      const empty = { txs: [], tx_responses: [], pagination: null, total: "0" };
      await fault({ prefix: "/cosmos/tx/v1beta1/txs?", body: JSON.stringify(empty), content_type: "application/json" });
      stub = await setCursor(stub, { readThrough: height - 1 });
      await pass(stub);
      expect(await cursorOf(stub)).toMatchObject({ readThrough: height - 1, failures: 0, following: true });

      await fetch(`${DEVNET}/__devnet/faults/${faults.pop()}`, { method: "DELETE" });
      await pass(stub);
      expect((await cursorOf(stub)).readThrough).toBeGreaterThanOrEqual(height);
    },
  );

  it("refuses a search that answers transactions of another block", async () => {
    let stub = await running();
    const head = await devnetHeight();
    const tx = await authorizeOnChain(accountAddress(), accountAddress());
    await fault({ prefix: "/cosmos/tx/v1beta1/txs/block/", status: 404 });
    const url = `${DEVNET}/cosmos/tx/v1beta1/txs?query=tx.height%3D${tx.height}`;
    const search = (await (await fetch(url)).json()) as { tx_responses: object[] };
    const moved = {
      ...search,
      tx_responses: search.tx_responses.map((r: object) => ({ ...r, height: String(head - 50) })),
    };
    await fault({ prefix: "/cosmos/tx/v1beta1/txs?", body: JSON.stringify(moved), content_type: "application/json" });
    stub = await setCursor(stub, { readThrough: Number(tx.height) - 1 });
    await pass(stub);
    // The platform's alarm may have passed once more since the restart: as many refusals, never a block further.
    const refused = await cursorOf(stub);
    expect(refused.readThrough).toBe(Number(tx.height) - 1);
    expect(refused.failures).toBeGreaterThanOrEqual(1);
  });
});

describe("the public gateway", () => {
  it("serves no block and no transaction search: an open search is an abuse vector", async () => {
    for (const path of [
      "/api/cosmos/base/tendermint/v1beta1/blocks/latest",
      "/api/cosmos/tx/v1beta1/txs/block/5",
      `/api/cosmos/tx/v1beta1/txs?query=${encodeURIComponent("tx.height=5")}`,
    ]) {
      expect((await api(path)).status, path).toBe(404);
    }
  });
});

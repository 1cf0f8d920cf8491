/**
 * Each onboarding writes its own rows of the index after every change: the list and the feed see
 * what the object decided, a write D1 refuses is retried from the object's alarm until it lands,
 * a row never moves backwards, and everything is found again once the objects are gone from memory.
 */
import { logged } from "../helpers/console";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { writeOnboardingRow } from "../../src/onboardings/index/store";
import { owedRetryDelayMs as indexRetryDelayMs } from "../../src/onboardings/machine/schedule";
import type { OnboardingState } from "../../src/onboardings/state";
import type { OnboardingView } from "../../src/protocol/index";
import { api } from "../helpers/sessions";
import {
  accountAddress,
  bearer,
  clockTo,
  createOnboarding,
  devnetNode,
  host,
  hostPost,
  onboardingStub,
  page,
  pairByRelay,
  readOnboarding,
  restart,
  settle,
  wake,
} from "./helpers";

/** An ended onboarding is deleted 30 days after it ended (docs/HOSTS.md), written out so a changed one fails. */
const RETENTION_MS = 30 * 86_400_000;
const db = env.ONBOARDING_INDEX;

afterEach(() => vi.useRealTimers());

type Listed = { data: OnboardingView[]; has_more: boolean };
type Feed = { data: { id: string; type: string; onboarding_id: string; data: OnboardingView }[]; has_more: boolean };

async function listed(query: string): Promise<Listed> {
  const response = await host(`?${query}`);
  expect(response.status, await response.clone().text()).toBe(200);
  return response.json();
}

async function feedOf(id: string): Promise<Feed> {
  const response = await api(`/api/events?onboarding=${id}&limit=100`, { headers: bearer() });
  expect(response.status, await response.clone().text()).toBe(200);
  return response.json();
}

/** The version the index holds for `id`, straight from D1. */
async function rowVersion(id: string): Promise<number | null> {
  return (await db.prepare("SELECT version FROM onboardings WHERE id = ?").bind(id).first<number>("version")) ?? null;
}

/** The onboarding's own version, from its object. */
function objectVersion(id: string): Promise<number> {
  return runInDurableObject(onboardingStub(id), (_o, state) =>
    state.storage.get<{ version: number }>("state").then((s) => s!.version),
  );
}

/** Makes D1 refuse every write of one table (it is renamed away), until `restore()`. */
async function refuseWrites(table: "onboardings" | "events") {
  await db.exec(`ALTER TABLE ${table} RENAME TO ${table}_away`);
  return { restore: () => db.exec(`ALTER TABLE ${table}_away RENAME TO ${table}`) };
}

const payInApp = (id: string, address: string) => page.payout(id, { source: "in_app", address });

describe("the onboarding writes its row after every change", () => {
  it("lists what the object answers, at its version, and feeds each event with the onboarding it carried", async () => {
    const operator = accountAddress();
    const created = await createOnboarding({ operator, reference: "order-index-1" });
    await settle(created.id);
    expect(await listed("reference=order-index-1")).toEqual({ data: [created], has_more: false });

    // The payout is the operator itself: connected and authorized in one change.
    expect((await payInApp(created.id, operator)).status).toBe(200);
    await settle(created.id);
    const now = await readOnboarding(created.id);
    expect(now.status).toBe("authorized");
    expect((await listed(`operator=${operator}`)).data).toEqual([now]);
    // Delivery attempts change the object's version too, but not what the host lists: those are not written.
    const version = await rowVersion(created.id);
    expect(version).toBeGreaterThan(1);
    expect(version).toBeLessThanOrEqual(await objectVersion(created.id));

    const feed = await feedOf(created.id);
    expect(feed.data.map((e) => [e.type, e.data.status])).toEqual([
      ["onboarding.connected", "connected"],
      ["onboarding.authorized", "authorized"],
    ]);
    const delivered = (await (await host(`/${created.id}/events`)).json<{ events: { id: string }[] }>()).events.map(
      (e) => e.id,
    );
    expect(feed.data.map((e) => e.id)).toEqual(delivered);
    expect(feed.data[1]!.data.commands?.update_node).toContain(operator);
  });

  it("follows the chain's word to applied", async () => {
    const node = await devnetNode("paying-authorized-payout");
    const created = await createOnboarding({ operator: node.operator });
    await pairByRelay(created.id, node.payout_recipient);
    await settle(created.id);
    const applied = await readOnboarding(created.id);
    expect(applied.status).toBe("applied");
    expect(
      (await listed(`status=applied&operator=${node.operator}&limit=100`)).data.find((o) => o.id === created.id),
    ).toEqual(applied);
    expect((await feedOf(created.id)).data.map((e) => e.type)).toEqual([
      "onboarding.connected",
      "onboarding.authorized",
      "onboarding.applied",
    ]);
  });

  it(
    "retries a write D1 refused from its alarm until it lands, sooner than anything else the object " + "waits for",
    async () => {
      const refused = await refuseWrites("onboardings");
      const created = await createOnboarding({ operator: accountAddress(), reference: "retried-1" });
      await settle(created.id);
      // An open onboarding waits for nothing but its expiry, days away: the alarm is the index's, within seconds.
      const alarm = await runInDurableObject(onboardingStub(created.id), (_o, state) => state.storage.getAlarm());
      expect(alarm! - Date.now()).toBeLessThanOrEqual(indexRetryDelayMs(2));
      await refused.restore();
      expect(await listed("reference=retried-1")).toEqual({ data: [], has_more: false });
      expect(logged("warn")).toContainEqual(
        expect.objectContaining({ event: "index_write_failed", onboarding: created.id, version: 1 }),
      );
      // What the index is owed, and how often it was refused, is in the stored state; the alarm is its retry.
      const owed = await runInDurableObject(onboardingStub(created.id), (_o, state) =>
        state.storage.get<OnboardingState>("state"),
      );
      expect(owed!.indexed_version).toBeLessThan(owed!.version);
      expect(owed!.index_write).toEqual({ at: alarm, failures: 1 });

      clockTo(alarm!);
      expect(await runDurableObjectAlarm(onboardingStub(created.id))).toBe(true);
      expect(await listed("reference=retried-1")).toEqual({ data: [created], has_more: false });
      // Landed: the alarm is the expiry's again.
      const next = await runInDurableObject(onboardingStub(created.id), (_o, state) => state.storage.getAlarm());
      expect(next).toBe(Date.parse(created.expires_at));
    },
  );

  it(
    "resumes a write D1 refused after a restart, from its " + "alarm alone: applied shows up in the list and the feed",
    async () => {
      const node = await devnetNode("paying-authorized-payout");
      const created = await createOnboarding({ operator: node.operator, reference: "restarted-applied" });
      await settle(created.id);
      const refused = await refuseWrites("events");
      await pairByRelay(created.id, node.payout_recipient);
      await settle(created.id);
      const applied = await readOnboarding(created.id);
      expect(applied.status).toBe("applied");
      expect((await listed("reference=restarted-applied")).data.map((o) => o.status)).toEqual(["open"]);

      // Evicted: memory is gone; what the index is owed is in the stored state, and the stored alarm is its retry.
      await restart(created.id);
      const stored = await runInDurableObject(onboardingStub(created.id), (_o, state) =>
        Promise.all([state.storage.get<OnboardingState>("state"), state.storage.getAlarm()]),
      );
      const [state, alarm] = [stored[0]!, stored[1]!];
      expect(state.indexed_version).toBeLessThan(state.version);
      expect(alarm).toBe(state.index_write!.at);
      expect(alarm - Date.now()).toBeLessThanOrEqual(indexRetryDelayMs(20));
      await restart(created.id);
      await refused.restore();

      // Nothing but the alarm, when it is due.
      clockTo(alarm);
      expect(await runDurableObjectAlarm(onboardingStub(created.id))).toBe(true);
      expect((await listed("reference=restarted-applied")).data).toEqual([applied]);
      expect((await feedOf(created.id)).data.map((e) => e.type)).toEqual([
        "onboarding.connected",
        "onboarding.authorized",
        "onboarding.applied",
      ]);
    },
  );

  it("waits longer after each refused write, at most 5 minutes", () => {
    expect([1, 2, 3, 4, 6, 7, 20].map(indexRetryDelayMs)).toEqual([
      5_000, 10_000, 20_000, 40_000, 160_000, 300_000, 300_000,
    ]);
  });

  it(
    "never moves a row backwards: a newer change lands " + "past a failed one, and an older version changes nothing",
    async () => {
      const created = await createOnboarding({ operator: accountAddress() });
      await settle(created.id);
      const refused = await refuseWrites("events");
      await payInApp(created.id, accountAddress());
      await settle(created.id);
      const connected = await readOnboarding(created.id);
      await refused.restore();
      expect((await hostPost(`/${created.id}/cancel`, "")).status).toBe(200);
      // The refused write is retried when its lease ends, with the newest state.
      clockTo(Date.now() + indexRetryDelayMs(1));
      await settle(created.id);
      const cancelled = await readOnboarding(created.id);
      expect((await listed(`operator=${created.operator}`)).data).toEqual([cancelled]);
      const version = await rowVersion(created.id);
      expect(version).toBeGreaterThan(2);

      // A write of the older onboarding (a stale copy of the object, a late retry) is ignored.
      await writeOnboardingRow(db, { onboarding: connected as OnboardingView, version: version! - 1, events: [] });
      await writeOnboardingRow(db, { onboarding: connected as OnboardingView, version: version!, events: [] });
      expect((await listed(`operator=${created.operator}`)).data).toEqual([cancelled]);
      expect((await feedOf(created.id)).data.map((e) => e.type)).toEqual([
        "onboarding.connected",
        "onboarding.cancelled",
      ]);
    },
  );

  it("finds everything across a restart, and a restarted object adds no event twice", async () => {
    const operator = accountAddress();
    const ids: string[] = [];
    for (let n = 0; n < 3; n++) {
      const created = await createOnboarding({ operator, reference: `restart-${n}` });
      if (n > 0) await payInApp(created.id, accountAddress());
      if (n > 1) await hostPost(`/${created.id}/cancel`, "");
      await settle(created.id);
      ids.push(created.id);
    }
    const before = await listed(`operator=${operator}`);
    const feedsBefore = await Promise.all(ids.map(feedOf));
    for (const id of ids) await restart(id);
    // Read from D1 alone while the objects are gone from memory.
    expect(await listed(`operator=${operator}`)).toEqual(before);
    expect(before.data.map((o) => o.status)).toEqual(["cancelled", "connected", "open"]);
    expect(await Promise.all(ids.map(feedOf))).toEqual(feedsBefore);

    // A restarted object knows nothing of what landed: its next change offers every event again, and the feed keeps one
    // of each.
    await hostPost(`/${ids[1]}/cancel`, "");
    await settle(ids[1]!);
    expect((await feedOf(ids[1]!)).data.map((e) => e.type)).toEqual(["onboarding.connected", "onboarding.cancelled"]);
  });
});

describe("rows are deleted with their onboarding", () => {
  it("30 days after it ended, retried until D1 takes the deletion", async () => {
    const created = await createOnboarding({ operator: accountAddress(), reference: "retention-1" });
    await payInApp(created.id, accountAddress());
    await hostPost(`/${created.id}/cancel`, "");
    await settle(created.id);
    expect((await listed("reference=retention-1")).data).toHaveLength(1);
    const ended = Date.parse((await readOnboarding(created.id)).updated_at);

    const refused = await refuseWrites("events");
    clockTo(ended + RETENTION_MS);
    await wake(created.id);
    expect((await host(`/${created.id}`)).status).toBe(404);
    await refused.restore();
    // The deletion is still owed, across a restart too.
    expect((await listed("reference=retention-1")).data).toHaveLength(1);
    await restart(created.id);
    await wake(created.id);
    expect(await listed("reference=retention-1")).toEqual({ data: [], has_more: false });
    expect(await feedOf(created.id)).toEqual({ data: [], has_more: false });
    expect(await runInDurableObject(onboardingStub(created.id), (_o, state) => state.storage.list())).toEqual(
      new Map(),
    );
  });
});

/**
 * Delivery per endpoint, with real HTTP to the suite's webhook receiver: while the receiver fails
 * the onboardings of a test, the lane of its URL has one of them try it every 5 s and holds the
 * others back without an attempt; the first 2xx releases every one of them, each onboarding's
 * events in order. The clock is moved on to each probe; the lane's alarm is run as the platform
 * would run it.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { OnboardingState } from "../../src/onboardings/state";
import { api } from "../helpers/sessions";
import {
  accountAddress,
  alarmOf,
  bearer,
  clockTo,
  createOnboarding,
  deliveriesOf,
  host,
  laneStub,
  onboardingStub,
  outage,
  page,
  recover,
  restart,
  settle,
} from "../onboardings/helpers";

/** An event is given up 3 days after its first failed attempt (docs/HOSTS.md), written out so a changed one fails. */
const GIVE_UP_AFTER_MS = 3 * 86_400_000;

afterEach(() => vi.useRealTimers());

type LoggedEvent = {
  id: string;
  type: string;
  delivered_at: string | null;
  failed_at: string | null;
  next_attempt_at: string | null;
  waiting_for: { endpoint_failing_since: string } | { event: string } | null;
  attempts: { at: string; status?: number; error?: string }[];
};
type Feed = { data: { id: string; failed_at: string | null }[] };
type StoredLane = { failing_since: number | null; last_attempt_at: number | null; next_probe_at: number | null };

async function eventsLog(id: string): Promise<LoggedEvent[]> {
  return (await (await host(`/${id}/events`)).json<{ events: LoggedEvent[] }>()).events;
}
const storedLane = () => runInDurableObject(laneStub(), (_lane, state) => state.storage.get<StoredLane>("lane"));
const attemptsAt = async (ids: string[]) =>
  (await Promise.all(ids.map(async (id) => (await deliveriesOf(id)).length))).reduce((a, b) => a + b, 0);

/**
 * Onboardings that each owe the host two events (connected, authorized), their receiver failing,
 * each settled in turn: the first one's attempt fails, and the endpoint is failing when the others ask.
 */
async function failingOnboardings(n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const operator = accountAddress();
    const { id } = await createOnboarding({ operator });
    await outage([id]);
    expect((await page.payout(id, { source: "in_app", address: operator })).status).toBe(200);
    await settle(id);
    ids.push(id);
  }
  return ids;
}

/** Moves the clock to the lane's alarm (the next probe) and runs it. */
async function nextProbe(): Promise<number> {
  const at = (await alarmOf(laneStub()))!;
  if (at > Date.now()) clockTo(at);
  await runDurableObjectAlarm(laneStub());
  return at;
}

/** Runs the lane's alarm, or waits for the run the platform already started (a retry sets the alarm to now). */
const settleLane = () => runInDurableObject(laneStub(), (lane) => lane.alarm());

/** Ends a test's outage: the receiver answers, and the lane is told to try it now. */
async function endOutage(ids: string[]): Promise<void> {
  await recover(ids);
  await settleLane();
  await laneStub().retryNow();
  await settleLane();
  await Promise.all(ids.map(settle));
}

describe("delivery per endpoint", () => {
  it(
    "while the receiver fails, tries it with one waiting event every 5 s and spends no attempt of the " + "others",
    async () => {
      const ids = await failingOnboardings(3);
      // The first failed attempt: the endpoint is failing since then, and tried again 5 s later.
      const first = (await eventsLog(ids[0]!))[0]!;
      expect(first.attempts).toHaveLength(1);
      const lane = (await storedLane())!;
      expect(lane.next_probe_at! - lane.last_attempt_at!).toBe(5000);
      expect(await alarmOf(laneStub())).toBe(lane.next_probe_at);
      const failingSince = new Date(lane.failing_since!).toISOString();

      // The others asked and were held without an attempt; the log says what each event waits for and tries none yet.
      for (const id of ids) {
        const [head, next] = await eventsLog(id);
        expect(head).toMatchObject({ next_attempt_at: null, waiting_for: { endpoint_failing_since: failingSince } });
        expect(next).toMatchObject({ next_attempt_at: null, waiting_for: { event: head!.id }, attempts: [] });
      }
      expect(await attemptsAt(ids)).toBe(1);

      // Each probe is one attempt, 5 s after the one before, by an onboarding that has not probed yet.
      for (const probe of [1, 2]) {
        const before = (await storedLane())!.last_attempt_at!;
        const at = await nextProbe();
        expect(at - before).toBe(5000);
        expect(await attemptsAt(ids)).toBe(1 + probe);
        expect((await eventsLog(ids[probe - 1]!))[0]!.attempts).toHaveLength(probe === 1 ? 2 : 1);
      }
      expect((await eventsLog(ids[2]!))[0]!.attempts).toHaveLength(0);
      await endOutage(ids);
    },
  );

  it(
    "releases every held onboarding with the first 2xx, due at once, each onboarding's events delivered " + "in order",
    async () => {
      const ids = await failingOnboardings(3);
      await nextProbe(); // fails
      await recover(ids);
      await nextProbe();
      // The probe was delivered; every other held event is due now (released, not left to a timer of its own).
      for (const id of ids) {
        const [head] = await eventsLog(id);
        if (head!.delivered_at === null) expect(Date.parse(head!.next_attempt_at!)).toBeLessThanOrEqual(Date.now());
        expect(head!.waiting_for).toBeNull();
        expect(await alarmOf(onboardingStub(id))).toBeLessThanOrEqual(Date.now());
      }
      expect((await storedLane())!.failing_since).toBeNull();
      await Promise.all(ids.map(settle));
      for (const id of ids) {
        const log = await eventsLog(id);
        expect(log.every((e) => e.delivered_at !== null)).toBe(true);
        const delivered = (await deliveriesOf(id)).filter((d) => d.answer === 204).map((d) => JSON.parse(d.body).type);
        expect(delivered).toEqual(["onboarding.connected", "onboarding.authorized"]);
      }
    },
  );

  it("keeps the outage, its waiting onboardings and their held events across restarts", async () => {
    const ids = await failingOnboardings(2);
    await runInDurableObject(laneStub(), (_lane, state) => state.abort("restart")).catch(() => undefined);
    await Promise.all(ids.map(restart));
    expect((await storedLane())!.failing_since).not.toBeNull();
    await nextProbe(); // the first onboarding again: still failing
    await recover(ids);
    await nextProbe(); // the second: delivered, and the first released
    await Promise.all(ids.map(settle));
    for (const id of ids) expect((await eventsLog(id)).every((e) => e.delivered_at !== null)).toBe(true);
  });

  it("tries a failing endpoint at once when the host asks, and says when", async () => {
    const ids = await failingOnboardings(1);
    const now = Date.now();
    const retry = await laneStub().retryNow();
    expect(retry.failing).toBe(true);
    expect(Date.parse(retry.next_attempt_at!)).toBeLessThanOrEqual(Date.now());
    expect(Date.parse(retry.next_attempt_at!)).toBeGreaterThanOrEqual(now);
    await endOutage(ids);
    expect(await laneStub().retryNow()).toEqual({ failing: false, next_attempt_at: null });
  });

  it(
    "gives an event up 3 days after its first failed attempt, " +
      "shows it in the log and the feed, and sends it again on a retry",
    async () => {
      const [id] = await failingOnboardings(1);
      const firstFailed = Date.parse((await eventsLog(id!))[0]!.attempts[0]!.at);
      // Its own alarm is due no later than the moment it is given up.
      const stored = await runInDurableObject(onboardingStub(id!), (_o, state) =>
        state.storage.get<OnboardingState>("state"),
      );
      expect(stored!.events[0]!.next_attempt_at).toBeLessThanOrEqual(firstFailed + GIVE_UP_AFTER_MS);
      clockTo(firstFailed + GIVE_UP_AFTER_MS);
      await runDurableObjectAlarm(onboardingStub(id!));
      await settle(id!);
      const [givenUp, next] = await eventsLog(id!);
      expect(Date.parse(givenUp!.failed_at!) - firstFailed).toBeGreaterThanOrEqual(GIVE_UP_AFTER_MS);
      expect(givenUp!.delivered_at).toBeNull();
      const feed = await (await api(`/api/events?onboarding=${id}`, { headers: bearer() })).json<Feed>();
      expect(feed.data.map((e) => e.failed_at)).toEqual([givenUp!.failed_at, null]);
      // The next event is the one owed now: it waits for the endpoint, not for the event given up.
      expect(next).toMatchObject({ delivered_at: null, waiting_for: { endpoint_failing_since: expect.any(String) } });
      await endOutage([id!]);
      expect((await eventsLog(id!)).map((e) => [e.delivered_at !== null, e.failed_at !== null])).toEqual([
        [false, true],
        [true, false],
      ]);
      // The host asks for it again: sent, in its place, and no longer marked.
      const retried = await api("/api/webhook/retry", { method: "POST", headers: bearer() });
      expect(await retried.json()).toMatchObject({ failing: false, resent: 1 });
      await settle(id!);
      expect((await eventsLog(id!)).map((e) => [e.delivered_at !== null, e.failed_at])).toEqual([
        [true, null],
        [true, null],
      ]);
      const after = await (await api(`/api/events?onboarding=${id}`, { headers: bearer() })).json<Feed>();
      expect(after.data.map((e) => e.failed_at)).toEqual([null, null]);
    },
  );
});

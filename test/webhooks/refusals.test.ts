/**
 * A receiver's failure is settled by whose it is, with real HTTP to the suite's webhook receiver:
 * a refusal of one onboarding's body (a 4xx other than 408 and 429, while other events are taken)
 * backs that event off on its own schedule and holds nobody else; a probe the receiver refuses for
 * its body alone still ends an outage (the endpoint answers); the events log and `/api/health`
 * show the endpoint's state while it fails.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { api } from "../helpers/sessions";
import {
  accountAddress,
  alarmOf,
  clockTo,
  createOnboarding,
  deliveriesOf,
  host,
  laneStub,
  page,
  planAnswers,
  recover,
  settle,
} from "../onboardings/helpers";

afterEach(() => vi.useRealTimers());

type LoggedEvent = {
  delivered_at: string | null;
  next_attempt_at: string | null;
  waiting_for: Record<string, unknown> | null;
  attempts: { status?: number }[];
};
const eventsLog = async (id: string) => (await (await host(`/${id}/events`)).json<{ events: LoggedEvent[] }>()).events;
const laneFailingSince = () =>
  runInDurableObject(
    laneStub(),
    async (_l, state) => (await state.storage.get<{ failing_since: number }>("lane"))?.failing_since ?? null,
  );
const endpointHealth = async () =>
  (await (await api("/api/health")).json<{ host_handoff: { webhook_endpoint: Record<string, unknown> } }>())
    .host_handoff.webhook_endpoint;

/** An onboarding that owes the host two events (connected, authorized), paired and settled; `answers` planned first. */
async function owing(answers?: (number | "down")[]): Promise<string> {
  const operator = accountAddress();
  const { id } = await createOnboarding({ operator });
  if (answers) await planAnswers(id, answers);
  expect((await page.payout(id, { source: "in_app", address: operator })).status).toBe(200);
  await settle(id);
  return id;
}

describe("a receiver's failure is settled by whose it is", () => {
  it("backs off the events a receiver refuses for one onboarding alone, and holds no other onboarding", async () => {
    const refused = await owing(Array(100).fill(400));
    const [head] = await eventsLog(refused);
    // Refused for its body: no outage, and the event waits for its own retry, not for the endpoint.
    expect(head).toMatchObject({ delivered_at: null, waiting_for: null, attempts: [{ status: 400 }] });
    expect(await laneFailingSince()).toBeNull();

    const others = [await owing(), await owing()];
    // Its retry comes and is refused again, while another onboarding is written meanwhile.
    clockTo(Date.parse(head!.next_attempt_at!));
    await settle(refused);
    expect((await eventsLog(refused))[0]!.attempts).toHaveLength(2);
    others.push(await owing());
    expect(await laneFailingSince()).toBeNull();
    // Every other onboarding's events went at their first attempt, in order: none waited on the refused one.
    for (const id of others) {
      expect((await deliveriesOf(id)).map((d) => [JSON.parse(d.body).type, d.answer])).toEqual([
        ["onboarding.connected", 204],
        ["onboarding.authorized", 204],
      ]);
      expect((await eventsLog(id)).every((e) => e.delivered_at !== null && e.waiting_for === null)).toBe(true);
    }
  });

  it(
    "ends an outage with a probe the receiver refuses for " +
      "its body alone, and shows the endpoint's state meanwhile",
    async () => {
      const down = await owing(Array(100).fill(503));
      expect(await laneFailingSince()).not.toBeNull();
      const refused = await owing(Array(100).fill(422));
      // Held, with what the endpoint last answered, in the log and in the health report.
      expect((await eventsLog(refused))[0]!.waiting_for).toMatchObject({ endpoint_last_error: "HTTP 503" });
      expect(await endpointHealth()).toMatchObject({ failing_since: expect.any(String), last_error: "HTTP 503" });

      // The first probe is the onboarding that failed first; the second is the refused one's.
      await probe();
      expect((await eventsLog(down))[0]!.attempts).toHaveLength(2);
      await recover([down]);
      await probe();
      expect((await eventsLog(refused))[0]!.attempts).toMatchObject([{ status: 422 }]);
      expect(await laneFailingSince()).toBeNull();
      expect(await endpointHealth()).toMatchObject({ failing_since: null, last_error: null });
      // The outage is over: the one held is released and delivers; the refused event backs off alone.
      await settle(down);
      expect((await eventsLog(down)).every((e) => e.delivered_at !== null)).toBe(true);
      expect((await eventsLog(refused))[0]).toMatchObject({ delivered_at: null, waiting_for: null });
    },
  );
});

describe("a receiver that refuses everything", () => {
  it("shows as failing on /api/health and in the events log within a minute, and a 2xx ends it", async () => {
    const started = Date.now();
    const a = await owing(Array(100).fill(401));
    const b = await owing(Array(100).fill(401));
    // Each refusal alone backs its event off (5 s); the refusals in a row from both onboardings are the endpoint's.
    for (let turn = 0; turn < 6 && (await laneFailingSince()) === null; turn++) {
      const next = (await Promise.all([a, b].map(eventsLog)))
        .map((log) => log[0]!.next_attempt_at)
        .filter((at): at is string => at !== null)
        .map(Date.parse);
      if (next.length === 0) break;
      clockTo(Math.max(Date.now(), Math.min(...next)));
      await settle(a);
      await settle(b);
    }
    expect(await endpointHealth()).toMatchObject({
      failing_since: expect.any(String),
      last_error: "HTTP 401 to every event",
    });
    expect(Date.now() - started).toBeLessThanOrEqual(60_000);
    // The one refused last is held at once, the other at its own next attempt: both wait for the endpoint.
    for (const id of [a, b]) {
      const [head] = await eventsLog(id);
      if (head!.waiting_for === null) {
        clockTo(Math.max(Date.now(), Date.parse(head!.next_attempt_at!)));
        await settle(id);
      }
      const held = (await eventsLog(id))[0]!;
      expect(held.waiting_for).toMatchObject({ endpoint_last_error: "HTTP 401 to every event" });
      expect(held.next_attempt_at).toBeNull();
    }

    // A refused probe keeps it failing; an onboarding the receiver takes is probed in turn, and its 2xx ends it.
    await probe();
    expect(await laneFailingSince()).not.toBeNull();
    const taken = await owing();
    for (let n = 0; n < 4 && (await laneFailingSince()) !== null; n++) await probe();
    expect(await laneFailingSince()).toBeNull();
    expect(await endpointHealth()).toMatchObject({ failing_since: null, last_error: null });
    await settle(taken);
    expect((await eventsLog(taken)).every((e) => e.delivered_at !== null)).toBe(true);
  });

  it("is not the endpoint's while only one onboarding's events are refused", async () => {
    const refused = await owing(Array(100).fill(401));
    for (let turn = 0; turn < 4; turn++) {
      const [head] = await eventsLog(refused);
      clockTo(Math.max(Date.now(), Date.parse(head!.next_attempt_at!)));
      await settle(refused);
    }
    expect((await eventsLog(refused))[0]!.attempts.length).toBeGreaterThanOrEqual(4);
    expect(await laneFailingSince()).toBeNull();
  });
});

/** Moves the clock to the lane's next probe and runs it. */
async function probe(): Promise<void> {
  const at = (await alarmOf(laneStub()))!;
  if (at > Date.now()) clockTo(at);
  await runDurableObjectAlarm(laneStub());
}

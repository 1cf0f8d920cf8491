/**
 * WebhookLane: the delivery lane of one webhook URL (`idFromName(url)`), running the machine of
 * src/webhooks/lane.ts. Onboardings ask it before each attempt; while the receiver answers it only
 * says "go" and writes nothing. Once an attempt fails it holds every onboarding back, has one of
 * them try the receiver on a slow cadence (the probe, from its alarm), and releases them all, 50 at
 * a time, once the receiver answers again; each stays registered until its release lands, so a
 * lane evicted in the middle of releasing carries on from its alarm.
 *
 * Each decision is applied in one synchronous step, its writes not awaited (the output gate holds
 * the answer until they are durable). The lane is one stored value; each waiting onboarding is a
 * key of its own, so registering one writes one small value however many wait.
 */
import { DurableObject } from "cloudflare:workers";
import {
  ANSWERING,
  laneTransition,
  type Admission,
  type LaneEffect,
  type LaneEvent,
  type LaneState,
  type ProbeResult,
  type Waiter,
} from "../../src/webhooks/lane";
import { fanOut } from "../../src/fan-out";
import { performEach } from "../effects";

const LANE_KEY = "lane";
const WAITER_PREFIX = "w:";
/** Storage deletes at most this many keys at once. */
const DELETE_BATCH = 128;

export class WebhookLane extends DurableObject<Env> {
  private lane: LaneState = ANSWERING;
  private readonly waiting = new Map<string, Waiter>();
  /** The alarm's work under way (a probe, releases), if any. */
  private running: Promise<void> | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => {
      this.lane = { ...ANSWERING, ...(await ctx.storage.get<LaneState>(LANE_KEY)) };
      for (const [key, waiter] of await ctx.storage.list<Waiter>({ prefix: WAITER_PREFIX }))
        this.waiting.set(key.slice(WAITER_PREFIX.length), waiter);
    });
  }

  /**
   * Before `onboarding` attempts its oldest event: go, or wait to be released (it is registered). `attemptDue`: when
   * that event, never attempted, must have had an attempt of its own (the lane's probe comes for it by then).
   */
  admit(onboarding: string, attemptDue: number | null = null): Admission {
    return this.apply({ type: "admit", onboarding, due: attemptDue }).answer;
  }

  /** An attempt `onboarding` was admitted to failed (`error`): the endpoint is failing, and it waits to be released. */
  failed(onboarding: string, error: string): Admission {
    return this.apply({ type: "failed", onboarding, error }).answer;
  }

  /** An attempt `onboarding` was admitted to was refused (`error`, a 4xx): counted; go, or wait if it refuses all. */
  refused(onboarding: string, error: string): Admission {
    return this.apply({ type: "refused", onboarding, error }).answer;
  }

  /** An attempt `onboarding` was admitted to was delivered while refusals were counted: the count ends. */
  answered(onboarding: string): void {
    this.apply({ type: "answered", onboarding });
  }

  /** The endpoint's state, as the health report shows it. */
  status(): { failing_since: string | null; last_error: string | null; waiting: number } {
    const { failing_since, last_error } = this.lane;
    const since = failing_since === null ? null : new Date(failing_since).toISOString();
    return { failing_since: since, last_error, waiting: this.waiting.size };
  }

  /** A failing endpoint is tried now (the host says its receiver is back). */
  retryNow(): { failing: boolean; next_attempt_at: string | null } {
    this.apply({ type: "retry" });
    const { failing_since, next_probe_at } = this.lane;
    return {
      failing: failing_since !== null,
      next_attempt_at: next_probe_at === null ? null : new Date(next_probe_at).toISOString(),
    };
  }

  /**
   * The probe when one is due, or the releases still owed; an alarm while one runs (a retry asked for meanwhile) joins
   * it.
   */
  override alarm(): Promise<void> {
    this.running ??= Promise.all(this.apply({ type: "alarm" }).work).then(
      () => void (this.running = null),
      (err: unknown) => {
        this.running = null;
        throw err;
      },
    );
    return this.running;
  }

  /**
   * Decides the event and performs its effects in order, without an await between them; returns the answer and the work
   * it started.
   */
  private apply(event: LaneEvent): { answer: Admission; work: Promise<void>[] } {
    const next = laneTransition(this.lane, this.waiting, event, Date.now());
    this.lane = next.lane;
    return { answer: next.answer, work: performEach(next.effects, (effect) => this.perform(effect)) };
  }

  private perform(effect: LaneEffect): Promise<void> | undefined {
    switch (effect.type) {
      case "store":
        void this.ctx.storage.put(LANE_KEY, effect.lane);
        return;
      case "wait":
        this.waiting.set(effect.onboarding, effect.waiter);
        void this.ctx.storage.put(WAITER_PREFIX + effect.onboarding, effect.waiter);
        return;
      case "forget":
        for (const id of effect.onboardings) this.waiting.delete(id);
        for (let i = 0; i < effect.onboardings.length; i += DELETE_BATCH) {
          void this.ctx.storage.delete(effect.onboardings.slice(i, i + DELETE_BATCH).map((id) => WAITER_PREFIX + id));
        }
        return;
      case "schedule":
        void (effect.at === null ? this.ctx.storage.deleteAlarm() : this.ctx.storage.setAlarm(effect.at));
        return;
      case "probe":
        return this.probe(effect.onboarding);
      case "release":
        // One that cannot be reached stays registered: the alarm's lease sends it again.
        return fanOut(effect.onboardings, (id) =>
          this.onboarding(id)
            .laneOpen()
            .then(() => void this.apply({ type: "released", onboarding: id })),
        ).then(() => undefined);
    }
  }

  private async probe(onboarding: string): Promise<void> {
    let result: ProbeResult;
    try {
      result = await this.onboarding(onboarding).laneProbe();
    } catch {
      // Not reachable now: another waiting onboarding probes instead; this one asks again on its own.
      result = { outcome: "nothing", error: null };
    }
    await Promise.all(this.apply({ type: "probed", onboarding, ...result }).work);
  }

  private onboarding(id: string) {
    return this.env.ONBOARDINGS.get(this.env.ONBOARDINGS.idFromName(id));
  }
}

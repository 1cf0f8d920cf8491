/**
 * The WebhookLane Durable Object (durable-objects/WebhookLane.ts) around the REAL lane machine
 * (`laneTransition` of src/webhooks/lane.ts): the lane and each waiting onboarding are stored,
 * the alarm's work under way is memory.
 */
import {
  ANSWERING,
  type Admission,
  type LaneEffect,
  type LaneEvent,
  type LaneState,
  laneTransition,
  type ProbeResult,
  type Waiter,
} from "../../src/webhooks/lane";
import { FAN_OUT_WIDTH } from "../../src/fan-out";
import { type Co, joinAll, joinSettled, type Task } from "./kernel";
import { SimObject } from "./objects";
import type { World } from "./world";

const LANE_KEY = "lane";
const WAITER_PREFIX = "w:";

export class LaneObject extends SimObject {
  lane: LaneState = ANSWERING;
  readonly waiting = new Map<string, Waiter>();
  private running = false;

  constructor(private readonly world: World) {
    super(world, "lane");
  }

  protected load(): void {
    this.lane = (this.storage.get(LANE_KEY) as LaneState | undefined) ?? ANSWERING;
    this.waiting.clear();
    for (const [key, value] of this.storage)
      if (key.startsWith(WAITER_PREFIX)) this.waiting.set(key.slice(WAITER_PREFIX.length), value as Waiter);
    this.running = false;
  }

  protected dropMemory(): void {
    this.lane = ANSWERING;
    this.waiting.clear();
    this.running = false;
  }

  admit(onboarding: string): Admission {
    return this.apply({ type: "admit", onboarding }).answer;
  }

  failed(onboarding: string, error: string): Admission {
    return this.apply({ type: "failed", onboarding, error }).answer;
  }

  protected *onAlarm(): Co<void> {
    if (this.running) return;
    this.running = true;
    try {
      yield* joinAll(this.apply({ type: "alarm" }).work);
    } finally {
      this.running = false;
    }
  }

  private apply(event: LaneEvent): { answer: Admission; work: Task<void>[] } {
    const before = this.lane;
    const next = laneTransition(this.lane, this.waiting, event, this.now);
    this.lane = next.lane;
    if (before.failing_since === null && next.lane.failing_since !== null) this.world.laneFailed(this.now);
    if (before.failing_since === null && next.lane.failing_since !== null)
      this.world.trace(`lane failing: ${"onboarding" in event ? event.onboarding : event.type}'s attempt failed`);
    if (before.failing_since !== null && next.lane.failing_since === null)
      this.world.trace(`lane answering again (${event.type}${"onboarding" in event ? ` ${event.onboarding}` : ""})`);
    if (event.type === "probed") this.world.trace(`lane probe of ${event.onboarding}: ${event.outcome}`);
    const work: Task<void>[] = [];
    for (const effect of next.effects) {
      const started = this.perform(effect);
      if (started) work.push(started);
    }
    return { answer: next.answer, work };
  }

  private perform(effect: LaneEffect): Task<void> | undefined {
    switch (effect.type) {
      case "store":
        this.storage.set(LANE_KEY, effect.lane);
        return;
      case "wait":
        this.waiting.set(effect.onboarding, effect.waiter);
        this.storage.set(WAITER_PREFIX + effect.onboarding, effect.waiter);
        return;
      case "forget":
        for (const id of effect.onboardings) {
          this.waiting.delete(id);
          this.storage.delete(WAITER_PREFIX + id);
        }
        return;
      case "schedule":
        if (effect.at === null) this.deleteAlarm();
        else this.setAlarm(effect.at);
        return;
      case "probe":
        return this.run(this.probe(effect.onboarding));
      case "release":
        return this.run(this.release(effect.onboardings));
    }
  }

  private *probe(onboarding: string): Co<void> {
    let result: ProbeResult;
    try {
      result = yield* this.world.toOnboarding(onboarding, (o) => o.laneProbe());
    } catch {
      // Not reachable now: another waiting onboarding probes instead; this one asks again on its own.
      result = { outcome: "nothing", error: null };
    }
    yield* joinAll(this.apply({ type: "probed", onboarding, ...result }).work);
  }

  /** fanOut of src/fan-out.ts: one that cannot be reached stays registered, and the alarm's lease sends it again. */
  private *release(onboardings: string[]): Co<void> {
    const self = this;
    for (let i = 0; i < onboardings.length; i += FAN_OUT_WIDTH) {
      const batch = onboardings.slice(i, i + FAN_OUT_WIDTH).map((id) =>
        this.run(
          (function* (): Co<void> {
            yield* self.world.toOnboarding(id, (o) => o.laneOpen());
            self.apply({ type: "released", onboarding: id });
          })(),
        ),
      );
      yield* joinSettled(batch);
    }
  }
}

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
  type ProbeOutcome,
  type Waiter,
} from "../../src/webhooks/lane";
import { type Co, joinAll, type Task } from "./kernel";
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

  protected drop(): void {
    this.lane = ANSWERING;
    this.waiting.clear();
    this.running = false;
  }

  admit(onboarding: string): Admission {
    return this.apply({ type: "admit", onboarding }).answer;
  }

  failed(onboarding: string): Admission {
    return this.apply({ type: "failed", onboarding }).answer;
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
    let outcome: ProbeOutcome;
    try {
      outcome = yield* this.world.toOnboarding(onboarding, (o) => o.laneProbe());
    } catch {
      outcome = "nothing";
    }
    yield* joinAll(this.apply({ type: "probed", onboarding, outcome }).work);
  }

  private *release(onboardings: string[]): Co<void> {
    const self = this;
    yield* joinAll(
      onboardings.map((id) =>
        this.run(
          (function* (): Co<void> {
            try {
              yield* self.world.toOnboarding(id, (o) => o.laneOpen());
            } catch {
              self.apply({ type: "unreleased", onboarding: id });
            }
          })(),
        ),
      ),
    );
  }
}

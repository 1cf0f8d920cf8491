/**
 * The Onboarding Durable Object (durable-objects/Onboarding.ts, with its effects and work tracking
 * in durable-objects/onboarding-effects.ts), mirrored step for step around the REAL machine
 * (`transition` of src/onboardings/machine.ts). Everything it owes lives in the stored state; what
 * it keeps in memory (the work under way, the wake-up running) is kept in memory here too, so an
 * eviction loses it exactly as it would.
 */
import {
  type MachineRules,
  type OnboardingEffect,
  type OnboardingEvent,
  transition,
  waitsForChain,
} from "../../src/onboardings/machine";
import { type DeliveryTurn, pendingHead, probeResult } from "../../src/onboardings/outbox";
import { type OnboardingState, type OutboxEvent, upgradeState } from "../../src/onboardings/state";
import { attemptProblem, delivered, failureOf } from "../../src/webhooks/standard-webhook";
import type { Admission, ProbeResult } from "../../src/webhooks/lane";
import { type Co, join, joinAll, type Task } from "./kernel";
import { SimObject } from "./objects";
import type { World } from "./world";

const STATE_KEY = "state";

export class OnboardingObject extends SimObject {
  // Memory, as the object keeps it.
  state: OnboardingState | null = null;
  private work = new WorkUnderWay(this);

  constructor(
    readonly world: World,
    readonly id: string,
    private readonly rules: MachineRules,
  ) {
    super(world, id);
  }

  protected load(): void {
    const stored = this.storage.get(STATE_KEY) as OnboardingState | undefined;
    this.state = stored ? upgradeState(stored) : null;
    this.work = new WorkUnderWay(this);
  }

  protected dropMemory(): void {
    this.state = null;
    this.work = new WorkUnderWay(this);
  }

  /** The stored state (what survives), whatever the memory holds. */
  stored(): OnboardingState | null {
    return (this.storage.get(STATE_KEY) as OnboardingState | undefined) ?? null;
  }

  // RPC methods, each run in the live incarnation (the caller activated it).

  call(event: OnboardingEvent): void {
    const answer = this.apply(event);
    if ("reason" in answer) this.world.trace(`${this.id} ${event.type}: ${answer.status} ${answer.reason}`);
  }

  chainHint(hint: { height: number; following: boolean }): { waiting: boolean } {
    const answer = this.apply({ type: "hint", height: hint.height, following: hint.following });
    return { waiting: !("reason" in answer) && waitsForChain(answer.body) };
  }

  laneOpen(): void {
    this.apply({ type: "released" });
  }

  *laneProbe(): Co<ProbeResult> {
    const head = this.state && this.rules.delivering ? pendingHead(this.state) : null;
    if (!head) return { outcome: "nothing", error: null };
    this.apply({ type: "probe" });
    yield* this.work.idle();
    return probeResult(this.state, head.id);
  }

  protected *onAlarm(): Co<void> {
    yield* this.work.wake(() => this.apply({ type: "wake" }));
  }

  apply(event: OnboardingEvent) {
    if (event.type === "delivered" && !(event.turn.attempt && delivered(event.turn.attempt)))
      this.world.troubled(event.id, this.now);
    const before = this.state;
    const next = transition(this.state, event, this.now, this.rules);
    this.state = next.state;
    if (next.state && next.state.record.status !== before?.record.status)
      this.world.trace(`${this.id} is ${next.state.record.status} (version ${next.state.version})`);
    if (event.type === "delivered") this.world.trace(`${this.id} ${describeTurn(event.turn, event.id, next.state)}`);
    if (event.type === "indexed")
      this.world.trace(
        `${this.id} index ${event.version === null ? "deletion" : `write of version ${event.version}`}` +
          (event.ok ? " landed" : " refused"),
      );
    if (event.type === "unfollowed" && !event.ok) this.world.trace(`${this.id} unwatch failed (owed, retried)`);
    const work: Task<OnboardingEvent | undefined>[] = [];
    for (const effect of next.effects) {
      const started = this.perform(effect, before);
      if (started) work.push(this.run(started));
    }
    this.work.track(work, (found) => this.apply(found));
    return next.answer;
  }

  /** performOnboardingEffect of durable-objects/onboarding-effects.ts: work resolves to the event it found. */
  private perform(
    effect: OnboardingEffect,
    before: OnboardingState | null,
  ): Co<OnboardingEvent | undefined> | undefined {
    const self = this;
    switch (effect.type) {
      case "store":
        this.storage.set(STATE_KEY, effect.state);
        return;
      case "schedule":
        if (effect.at === null) this.deleteAlarm();
        else this.setAlarm(effect.at);
        return;
      case "notify":
        return;
      case "read": {
        const since = this.now;
        const { record, claimed } = effect;
        return (function* (): Co<OnboardingEvent> {
          const reading = yield* self.world.readChain(record, claimed);
          return { type: "observed", reading, since };
        })();
      }
      case "deliver": {
        const { onboarding, event, admitted } = effect;
        return (function* (): Co<OnboardingEvent | undefined> {
          try {
            const turn = yield* self.deliveryTurn(onboarding, event, admitted);
            return { type: "delivered", id: event.id, turn };
          } catch (err) {
            // The lane could not be reached: the event's lease tries it again.
            self.world.trace(`${onboarding} lane unreachable: ${String(err)}`);
            return undefined;
          }
        })();
      }
      case "follow": {
        const { id, addresses } = effect;
        return (function* (): Co<OnboardingEvent> {
          try {
            const answer = yield* self.world.toFollower((f) => f.watch(id, addresses));
            return { type: "followed", following: answer.following };
          } catch (err) {
            self.world.trace(`${id} watch failed: ${String(err)}`);
            return { type: "followed", following: false };
          }
        })();
      }
      case "unfollow": {
        const { id } = effect;
        return (function* (): Co<OnboardingEvent> {
          try {
            yield* self.world.toFollower((f) => f.unwatch(id));
            return { type: "unfollowed", ok: true };
          } catch {
            return { type: "unfollowed", ok: false };
          }
        })();
      }
      case "index": {
        const { row } = effect;
        return (function* (): Co<OnboardingEvent> {
          try {
            yield* self.world.d1.write(row);
            return { type: "indexed", version: row.version, ok: true };
          } catch {
            return { type: "indexed", version: row.version, ok: false };
          }
        })();
      }
      case "unindex": {
        const { id } = effect;
        return (function* (): Co<OnboardingEvent> {
          try {
            yield* self.world.d1.deleteRows(id);
            return { type: "indexed", version: null, ok: true };
          } catch {
            return { type: "indexed", version: null, ok: false };
          }
        })();
      }
      case "erase":
        this.world.erased(this, before);
        this.deleteAlarm();
        this.storage.clear();
        return;
    }
  }

  /** deliveryTurn of src/webhooks/lane-delivery.ts. */
  private *deliveryTurn(onboarding: string, event: OutboxEvent, admitted: boolean): Co<DeliveryTurn> {
    const askedAt = this.now;
    const admission: Admission = admitted ? { go: true } : yield* this.world.toLane((lane) => lane.admit(onboarding));
    if (!admission.go) return { askedAt, failingSince: admission.failing_since, lastError: admission.last_error };
    const attempt = yield* this.world.receiver.attempt(onboarding, event);
    if (delivered(attempt) || admitted || failureOf(attempt) === "event") return { askedAt, attempt };
    const held: Admission = yield* this.world.toLane((lane) => lane.failed(onboarding, attemptProblem(attempt)));
    return held.go
      ? { askedAt, attempt }
      : { askedAt, attempt, failingSince: held.failing_since, lastError: held.last_error };
  }
}

/** WorkUnderWay of durable-objects/onboarding-effects.ts: the work under way, in memory only. */
class WorkUnderWay {
  private readonly running = new Set<Task<void>>();
  private waking = false;

  constructor(private readonly object: OnboardingObject) {}

  track(work: readonly Task<OnboardingEvent | undefined>[], apply: (found: OnboardingEvent) => unknown): void {
    const object = this.object;
    for (const started of work) {
      const tracked = object.run(
        (function* (): Co<void> {
          try {
            const found = yield* join(started);
            if (found) apply(found);
          } catch (err) {
            object.world.threw(object, "work", err);
          }
        })(),
      );
      this.running.add(tracked);
      tracked.then(() => this.running.delete(tracked));
    }
  }

  /** Waits until nothing is under way; true if something was. */
  *idle(): Co<boolean> {
    if (this.running.size === 0) return false;
    while (this.running.size > 0) yield* joinAll([...this.running]);
    return true;
  }

  /** The alarm: `step` starts what is due, and is taken again after the work it started, until nothing is due. */
  *wake(step: () => void): Co<void> {
    if (this.waking) return;
    this.waking = true;
    try {
      do step();
      while (yield* this.idle());
    } finally {
      this.waking = false;
    }
  }
}

function describeTurn(turn: DeliveryTurn, id: string, state: OnboardingState | null): string {
  const event = state?.events.find((e) => e.id === id);
  const name = event?.type ?? id;
  const a = turn.attempt;
  const outcome = !a ? "held by the lane (no attempt)" : "status" in a ? `answered ${a.status}` : a.error;
  const after = event?.delivered_at
    ? "delivered"
    : event?.failed_at
      ? "given up"
      : event?.next_attempt_at
        ? `next at ${new Date(event.next_attempt_at).toISOString().slice(5, 19)}`
        : "";
  return `${name}: ${outcome}; ${after}`;
}

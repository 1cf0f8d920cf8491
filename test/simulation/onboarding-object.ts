/**
 * The Onboarding Durable Object (durable-objects/Onboarding.ts) and its index sync
 * (src/onboardings/index-sync.ts), mirrored step for step around the REAL machine
 * (`transition` of src/onboardings/machine.ts). What the object keeps in memory (the index's
 * owed write, its retry time, the alarm it believes is set) is kept in memory here too, so an
 * eviction loses it exactly as it would; what it puts in storage survives.
 */
import { indexRetryDelayMs } from "../../src/onboardings/index-sync";
import {
  type MachineRules,
  type OnboardingEffect,
  type OnboardingEvent,
  transition,
} from "../../src/onboardings/machine";
import { pendingHead } from "../../src/onboardings/outbox";
import { type OnboardingRecord, type OnboardingState, upgradeState } from "../../src/onboardings/state";
import { delivered } from "../../src/webhooks/standard-webhook";
import type { DeliveryTurn } from "../../src/onboardings/outbox";
import type { Admission, ProbeOutcome } from "../../src/webhooks/lane";
import { type Co, joinAll, type Task } from "./kernel";
import { SimObject } from "./objects";
import type { World } from "./world";

const STATE_KEY = "state";
const ERASE_KEY = "index_erase";

export class OnboardingObject extends SimObject {
  // Memory, as the object keeps it.
  state: OnboardingState | null = null;
  private wakeAt: number | null = null;
  private alarmAt: number | null | undefined = undefined;
  private waking = false;
  private index: IndexSyncMirror | null = null;

  constructor(
    private readonly world: World,
    readonly id: string,
    private readonly rules: MachineRules,
  ) {
    super(world, id);
  }

  protected load(): void {
    const stored = this.storage.get(STATE_KEY) as OnboardingState | undefined;
    this.state = stored ? upgradeState(stored) : null;
    this.wakeAt = this.alarm;
    this.alarmAt = undefined;
    this.waking = false;
    this.index = new IndexSyncMirror(this);
    this.index.load(this.state);
  }

  protected drop(): void {
    this.state = null;
    this.wakeAt = null;
    this.alarmAt = undefined;
    this.waking = false;
    this.index = null;
  }

  /** The stored state (what survives), whatever the memory holds. */
  stored(): OnboardingState | null {
    return (this.storage.get(STATE_KEY) as OnboardingState | undefined) ?? null;
  }

  get present(): (record: OnboardingRecord) => ReturnType<MachineRules["present"]> {
    return this.rules.present;
  }

  // RPC methods, each run in the live incarnation (the caller activated it).

  call(event: OnboardingEvent): void {
    const answer = this.apply(event).answer;
    if ("reason" in answer) this.world.trace(`${this.id} ${event.type}: ${answer.status} ${answer.reason}`);
  }

  chainHint(hint: { height: number; following: boolean }): void {
    this.apply({ type: "hint", height: hint.height, following: hint.following });
  }

  laneOpen(): void {
    this.apply({ type: "released" });
  }

  *laneProbe(): Co<ProbeOutcome> {
    const head = this.state ? pendingHead(this.state) : null;
    if (!head) return "nothing";
    const askedAt = this.now;
    const attempt = yield* this.world.receiver.attempt(this.id, head);
    this.apply({ type: "delivered", id: head.id, turn: { askedAt, attempt } });
    return delivered(attempt) ? "delivered" : "failed";
  }

  protected *onAlarm(): Co<void> {
    // An alarm while a wake-up runs joins it.
    if (this.waking) return;
    this.waking = true;
    try {
      yield* this.wake();
    } finally {
      this.waking = false;
    }
  }

  private *wake(): Co<void> {
    this.alarmAt = undefined;
    for (let work = this.apply({ type: "wake" }).work; work.length > 0; work = this.apply({ type: "wake" }).work)
      yield* joinAll(work);
    yield* this.index!.flush();
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
    const work: Task<void>[] = [];
    for (const effect of next.effects) {
      const started = this.perform(effect);
      if (started) work.push(started);
    }
    return { answer: next.answer, work };
  }

  private perform(effect: OnboardingEffect): Task<void> | undefined {
    switch (effect.type) {
      case "store":
        this.storage.set(STATE_KEY, effect.state);
        this.index!.changed(effect.state);
        return;
      case "schedule":
        this.wakeAt = effect.at;
        this.setAlarmForWork();
        return;
      case "notify":
        return;
      case "read": {
        const since = this.now;
        const { record, claimed } = effect;
        return this.run(
          (function* (self: OnboardingObject): Co<void> {
            const reading = yield* self.world.readChain(record, claimed);
            self.apply({ type: "observed", reading, since });
          })(this),
        );
      }
      case "deliver": {
        const event = effect.event;
        return this.run(
          (function* (self: OnboardingObject): Co<void> {
            const turn = yield* self.deliveryTurn(event);
            self.apply({ type: "delivered", id: event.id, turn });
          })(this),
        );
      }
      case "follow": {
        const { id, addresses } = effect;
        return this.run(
          (function* (self: OnboardingObject): Co<void> {
            let following: boolean;
            try {
              following = (yield* self.world.toFollower((f) => f.watch(id, addresses))).following;
            } catch (err) {
              self.world.trace(`${id} watch failed: ${String(err)}`);
              following = false;
            }
            self.apply({ type: "followed", following });
          })(this),
        );
      }
      case "unfollow": {
        const { id } = effect;
        return this.run(
          (function* (self: OnboardingObject): Co<void> {
            try {
              yield* self.world.toFollower((f) => f.unwatch(id));
            } catch (err) {
              self.world.trace(`${id} unwatch failed (logged and dropped): ${String(err)}`);
            }
          })(this),
        );
      }
      case "erase":
        this.world.erased(this, this.state);
        this.wakeAt = null;
        this.alarmAt = undefined;
        this.deleteAlarm();
        this.storage.clear();
        this.index!.erased();
        return;
    }
  }

  /** deliveryTurn of src/webhooks/lane-delivery.ts. */
  private *deliveryTurn(event: { id: string; body: string }): Co<DeliveryTurn> {
    const askedAt = this.now;
    const admission: Admission = yield* this.world.toLane((lane) => lane.admit(this.id));
    if (!admission.go) return { askedAt, failingSince: admission.failing_since };
    const attempt = yield* this.world.receiver.attempt(this.id, event);
    if (delivered(attempt)) return { askedAt, attempt };
    const held: Admission = yield* this.world.toLane((lane) => lane.failed(this.id));
    return held.go ? { askedAt, attempt } : { askedAt, attempt, failingSince: held.failing_since };
  }

  /** setAlarm of the object: whatever is due first, the machine's wake-up or the index's write. */
  setAlarmForWork(): void {
    const times = [this.wakeAt, this.index?.retryAt ?? null].filter((t) => t !== null);
    const at = times.length === 0 ? null : Math.min(...times);
    if (at === this.alarmAt) return;
    this.alarmAt = at;
    if (at === null) this.deleteAlarm();
    else this.setAlarm(at);
  }

  /** For the index mirror. */
  get d1() {
    return this.world.d1;
  }

  putErase(id: string | null): void {
    if (id === null) this.storage.delete(ERASE_KEY);
    else this.storage.set(ERASE_KEY, id);
  }

  getErase(): string | null {
    return (this.storage.get(ERASE_KEY) as string | undefined) ?? null;
  }

  indexWritten(version: number): void {
    this.world.trace(`${this.id} index row written at version ${version}`);
  }

  indexWriteFailed(failures: number, retryAt: number | null): void {
    this.world.trace(`${this.id} index write refused (${failures} in a row), retry at ${this.world.at(retryAt)}`);
  }
}

/** IndexSync of src/onboardings/index-sync.ts: what the index is owed lives in this object's memory. */
class IndexSyncMirror {
  private landed: { record: OnboardingRecord; events: number } | null = null;
  private owed: OnboardingState | null = null;
  private erasing: string | null = null;
  private id: string | null = null;
  private writing: Task<void> | null = null;
  private failures = 0;
  retryAt: number | null = null;

  constructor(private readonly object: OnboardingObject) {}

  load(state: OnboardingState | null): void {
    this.id = state?.record.id ?? null;
    this.erasing = this.object.getErase();
  }

  changed(state: OnboardingState): void {
    this.id = state.record.id;
    const landed = this.landed;
    if (landed?.record === state.record && landed.events === state.events.length) return;
    this.owed = state;
    this.start();
  }

  erased(): void {
    if (this.id === null) return;
    this.owed = null;
    this.erasing = this.id;
    this.object.putErase(this.id);
    this.start();
  }

  *flush(): Co<void> {
    this.start();
    while (this.writing) {
      const writing = this.writing;
      yield* joinAll([writing]);
    }
  }

  private start(): void {
    if (this.writing || (this.owed === null && this.erasing === null)) return;
    this.retryAt = this.object.now + indexRetryDelayMs(this.failures + 1);
    this.object.setAlarmForWork();
    this.writing = this.object.run(this.attemptThenSettle());
  }

  private *attemptThenSettle(): Co<void> {
    yield* this.attempt();
    this.writing = null;
    if (this.failures > 0) return;
    if (this.owed || this.erasing) this.start();
    else {
      this.retryAt = null;
      this.object.setAlarmForWork();
    }
  }

  private *attempt(): Co<void> {
    const { owed: state, erasing } = this;
    try {
      if (erasing !== null) {
        yield* this.object.d1.deleteRows(erasing);
        if (this.erasing === erasing) this.erasing = null;
        this.object.putErase(null);
      } else if (state !== null) {
        const known = this.landed;
        const events = state.events.slice(known ? known.events : 0);
        yield* this.object.d1.write({ onboarding: this.object.present(state.record), version: state.version, events });
        this.landed = { record: state.record, events: state.events.length };
        this.object.indexWritten(state.version);
        if (this.owed === state) this.owed = null;
      }
      this.failures = 0;
    } catch {
      this.failures++;
      this.object.indexWriteFailed(this.failures, this.retryAt);
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

/**
 * The simulated world: the objects, what they talk to, and the RPCs between them (each way a
 * seeded latency; an RPC to an object evicted before it answers fails, as a broken RPC does).
 */
import type { ChainReading, MachineRules } from "../../src/onboardings/machine";
import type { OnboardingRecord, OnboardingState } from "../../src/onboardings/state";
import type { OnboardingView } from "../../src/protocol/index";
import { type FaultPlan, clock } from "./faults";
import { FollowerObject } from "./follower-object";
import { type Co, io, type Kernel, type Outcome } from "./kernel";
import { LaneObject } from "./lane-object";
import type { Host, SimObject } from "./objects";
import { OnboardingObject } from "./onboarding-object";
import { SimChain, SimD1, SimReceiver } from "./services";

/** Lines kept per subject (an onboarding, the lane, the follower, the world): the first ones, and the last. */
/** What the follower tells an onboarding (ChainHint of src/chain-follower/machine.ts). */
interface ChainHint {
  height: number;
  following: boolean;
}

const TRACE_FIRST = 400;
const TRACE_LINES = 1000;

export class World implements Host {
  readonly d1: SimD1;
  readonly receiver: SimReceiver;
  readonly chain: SimChain;
  readonly lane: LaneObject;
  readonly follower: FollowerObject;
  readonly onboardings = new Map<string, OnboardingObject>();
  /** The last state of each erased onboarding. */
  readonly erasedStates = new Map<string, OnboardingState>();
  /** Alarm runs per onboarding. */
  readonly wakes = new Map<string, number[]>();
  readonly errors: string[] = [];
  /** When each event first came back undelivered from a turn (a failed attempt, or held without one). */
  readonly firstTrouble = new Map<string, number>();
  private readonly lines = new Map<string, [number, string][]>();

  constructor(
    readonly kernel: Kernel,
    readonly start: number,
    readonly faults: FaultPlan,
    private readonly rules: MachineRules,
  ) {
    this.d1 = new SimD1(kernel, faults);
    this.receiver = new SimReceiver(kernel, faults);
    this.chain = new SimChain(kernel, start, faults);
    this.lane = new LaneObject(this);
    this.follower = new FollowerObject(this);
  }

  onboarding(id: string): OnboardingObject {
    let object = this.onboardings.get(id);
    if (!object) {
      object = new OnboardingObject(this, id, this.rules);
      this.onboardings.set(id, object);
    }
    return object;
  }

  // Host

  /** A line of the trace, kept under its first word (the onboarding, `lane`, `follower`). */
  trace(line: string): void {
    const subject = line.slice(0, line.indexOf(" "));
    let lines = this.lines.get(subject);
    if (!lines) this.lines.set(subject, (lines = []));
    lines.push([this.kernel.now, line]);
    if (lines.length > TRACE_FIRST + 2 * TRACE_LINES) lines.splice(TRACE_FIRST, TRACE_LINES);
  }

  /** The trace of `subjects`, in time order. */
  traceOf(subjects: readonly string[]): string[] {
    const picked = subjects.flatMap((s) => this.lines.get(s) ?? []);
    return picked.sort((a, b) => a[0] - b[0]).map(([t, line]) => `${clock(t - this.start)} ${line}`);
  }

  at(time: number | null): string {
    return time === null ? "never" : clock(time - this.start);
  }

  touched(object: SimObject): void {
    const rate = this.faults.evictionRate(this.kernel.now);
    if (rate > 0 && this.kernel.random.chance(rate)) this.kernel.at(this.kernel.now, () => object.evict("fault"));
  }

  alarmed(object: SimObject): void {
    if (!(object instanceof OnboardingObject)) return;
    const times = this.wakes.get(object.id) ?? [];
    times.push(this.kernel.now);
    this.wakes.set(object.id, times);
  }

  threw(object: SimObject, where: string, error: unknown): void {
    const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
    const line = `${object.name} threw in ${where}: ${detail}`;
    this.errors.push(line);
    this.trace(line);
  }

  /** When the lane went into an outage, each time. */
  readonly laneOutages: number[] = [];

  laneFailed(now: number): void {
    this.laneOutages.push(now);
  }

  troubled(eventId: string, now: number): void {
    if (!this.firstTrouble.has(eventId)) this.firstTrouble.set(eventId, now);
  }

  erased(object: OnboardingObject, state: OnboardingState | null): void {
    if (state) this.erasedStates.set(object.id, state);
    this.trace(`${object.id} erased (retention over)`);
  }

  // RPCs

  private latency(): number {
    return this.kernel.random.int(1, 25);
  }

  /** An RPC to `target`: `handler` runs in its live incarnation; a coroutine's end is the answer. */
  *rpc<O extends SimObject, T>(target: O, handler: (object: O) => T | Co<T>, unreachable = false): Co<T> {
    const kernel = this.kernel;
    return (yield {
      start: (done: (outcome: Outcome<T>) => void) => {
        const back = this.latency();
        kernel.after(this.latency(), () => {
          if (unreachable) {
            kernel.after(back, () => done({ ok: false, error: new Error(`${target.name} unreachable`) }));
            return;
          }
          const inc = target.activate();
          let result: T | Co<T>;
          try {
            result = handler(target);
          } catch (error) {
            kernel.after(back, () => done({ ok: false, error }));
            return;
          }
          if (!isCoroutine(result)) {
            const value = result;
            kernel.after(back, () => done({ ok: true, value }));
            return;
          }
          const task = kernel.spawn(inc, result);
          const broken = () =>
            kernel.after(back, () => done({ ok: false, error: new Error(`${target.name} was evicted`) }));
          inc.onDeath.add(broken);
          task.then((outcome) => {
            inc.onDeath.delete(broken);
            kernel.after(back, () => done(outcome));
          });
        });
      },
    }) as T;
  }

  toOnboarding<T>(id: string, handler: (object: OnboardingObject) => T | Co<T>): Co<T> {
    return this.rpc(this.onboarding(id), handler);
  }

  toLane<T>(handler: (object: LaneObject) => T | Co<T>): Co<T> {
    return this.rpc(this.lane, handler);
  }

  *toFollower<T>(handler: (object: FollowerObject) => T): Co<T> {
    const unreachable = this.faults.followerUnreachable(this.kernel.now);
    return yield* this.rpc(this.follower, handler, unreachable);
  }

  /** A hint from the follower; while hints are shuffled, copies arrive again later, in any order. */
  *sendHint(id: string, hint: ChainHint): Co<{ waiting: boolean }> {
    if (this.faults.hintsShuffled(this.kernel.now)) {
      const copies = this.kernel.random.int(1, 2);
      for (let i = 0; i < copies; i++) {
        this.kernel.after(this.kernel.random.int(0, 3_000), () => {
          this.trace(`${id} hint ${hint.height} (a copy)`);
          this.onboarding(id).activate();
          this.onboarding(id).chainHint(hint);
        });
      }
      yield* io(this.kernel, this.kernel.random.int(0, 2_000), () => undefined);
    }
    return yield* this.toOnboarding(id, (o) => o.chainHint(hint));
  }

  // The chain as the objects read it.

  /** readChain of src/onboardings/chain-watch.ts (no claimed transactions in this world). */
  *readChain(record: OnboardingRecord, _claimed: string | null): Co<ChainReading> {
    const reading: ChainReading = {};
    if (record.payout === null) return reading;
    const payout = record.payout;
    try {
      if (record.status === "connected" && record.authorization.required) {
        reading.authorizations = yield* io(this.kernel, this.kernel.random.int(20, 400), () => {
          if (this.chain.nodesDown()) throw new Error("no node answered");
          const height = this.chain.answeringHeight();
          return { listed: this.chain.listed(payout, record.operator, height), height };
        });
      }
      if (record.status === "authorized" || reading.authorizations?.listed) {
        reading.node = yield* io(this.kernel, this.kernel.random.int(20, 400), () => {
          if (this.chain.nodesDown()) throw new Error("no node answered");
          const height = this.chain.answeringHeight();
          return { payoutRecipient: this.chain.payoutAt(record.operator, height), height };
        });
      }
    } catch {
      // Logged by the real code; the next check asks again.
    }
    return reading;
  }

  *readHead(): Co<number> {
    return yield* io(this.kernel, this.kernel.random.int(20, 300), () => {
      if (this.chain.nodesDown()) throw new Error("no node answered");
      return this.chain.answeringHeight();
    });
  }

  /** A block's strings; null while the node's transaction index does not show it yet (the search fallback). */
  *readBlockStrings(height: number): Co<string[] | null> {
    return yield* io(this.kernel, this.kernel.random.int(20, 300), () => {
      if (this.chain.nodesDown()) throw new Error("no node answered");
      return this.chain.indexTrails(height) ? null : this.chain.strings(height);
    });
  }

  /** The onboarding as the index should show it. */
  view(state: OnboardingState): OnboardingView {
    return this.rules.present(state.record);
  }
}

function isCoroutine<T>(value: T | Co<T>): value is Co<T> {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { next?: unknown }).next === "function" &&
    typeof (value as { throw?: unknown }).throw === "function"
  );
}

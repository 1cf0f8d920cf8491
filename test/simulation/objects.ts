/**
 * A simulated Durable Object: storage that survives an eviction, memory that does not, one alarm
 * kept with the storage, and the idle eviction the platform does to an object with nothing
 * running. Subclasses mirror the objects of durable-objects/ and keep in memory exactly what those
 * keep in memory.
 */
import { type Co, Incarnation, type Kernel } from "./kernel";

export interface Host {
  readonly kernel: Kernel;
  trace(line: string): void;
  /** An object ran a step: the world may evict it right after (a fault). */
  touched(object: SimObject): void;
  /** An alarm is about to run (counted per object). */
  alarmed(object: SimObject): void;
  /** An object's code threw where the real object would have failed a request or an alarm. */
  threw(object: SimObject, where: string, error: unknown): void;
}

/** The platform evicts an object idle this long (70 to 140 s; the seed picks within it). */
const IDLE_MIN_MS = 70_000;
const IDLE_MAX_MS = 140_000;

export abstract class SimObject {
  inc: Incarnation | null = null;
  readonly storage = new Map<string, unknown>();
  alarm: number | null = null;
  readonly evictions: number[] = [];
  private alarmToken = 0;
  private lastActive = 0;
  /** The incarnation whose alarm handler runs, and an alarm that came due meanwhile. */
  private alarmRunning: Incarnation | null = null;
  private alarmDeferred: (() => void) | null = null;
  private idleCheck = false;

  constructor(
    protected readonly host: Host,
    readonly name: string,
    /** An object whose alarms are its own clock (the follower): its steps do not keep the world busy. */
    readonly background = false,
  ) {}

  get kernel(): Kernel {
    return this.host.kernel;
  }

  get now(): number {
    return this.host.kernel.now;
  }

  /** The constructor and its blockConcurrencyWhile: memory from storage. */
  protected abstract load(): void;
  /** Memory dropped. */
  protected abstract dropMemory(): void;
  protected abstract onAlarm(): Co<void>;

  /** The live incarnation, started (from storage) if the object was evicted. */
  activate(): Incarnation {
    if (!this.inc) {
      this.inc = new Incarnation();
      this.load();
    }
    this.touch();
    return this.inc;
  }

  /** The object is evicted: its memory and in-flight work are gone, its storage and alarm stay. */
  evict(reason: string): void {
    if (!this.inc) return;
    this.inc.kill();
    this.inc = null;
    this.dropMemory();
    this.evictions.push(this.now);
    this.host.trace(`${this.name} evicted (${reason})`);
  }

  /** Runs `co` in the live incarnation. */
  run<T>(co: Co<T>) {
    return this.kernel.spawn(this.activate(), co);
  }

  setAlarm(at: number): void {
    this.alarm = at;
    const token = ++this.alarmToken;
    this.kernel.at(at, () => this.fire(token), this.background);
  }

  deleteAlarm(): void {
    this.alarm = null;
    this.alarmToken++;
  }

  touch(): void {
    this.lastActive = this.now;
    this.host.touched(this);
    if (!this.idleCheck) {
      this.idleCheck = true;
      this.kernel.at(this.now + IDLE_MIN_MS, () => this.checkIdle(), true);
    }
  }

  private checkIdle(): void {
    this.idleCheck = false;
    if (!this.inc) return;
    const idleFor = this.host.kernel.random.int(IDLE_MIN_MS, IDLE_MAX_MS);
    if (this.inc.running === 0 && this.now - this.lastActive >= idleFor) {
      this.evict("idle");
      return;
    }
    this.idleCheck = true;
    this.kernel.at(Math.max(this.now + 1000, this.lastActive + IDLE_MIN_MS), () => this.checkIdle(), true);
  }

  private fire(token: number): void {
    if (token !== this.alarmToken || this.alarm === null) return;
    // The platform runs one alarm handler at a time: an alarm due meanwhile runs after it.
    if (this.alarmRunning?.alive) {
      this.alarmDeferred = () => this.fire(token);
      return;
    }
    // The alarm that runs is spent; the handler sets the next one.
    this.alarm = null;
    this.host.alarmed(this);
    const inc = this.activate();
    this.alarmRunning = inc;
    const task = this.run(this.onAlarm());
    const finished = () => {
      inc.onDeath.delete(finished);
      if (this.alarmRunning !== inc) return;
      this.alarmRunning = null;
      const deferred = this.alarmDeferred;
      this.alarmDeferred = null;
      if (deferred) this.kernel.at(this.now, deferred, this.background);
    };
    inc.onDeath.add(finished);
    task.then((outcome) => {
      if (!outcome.ok) this.host.threw(this, "alarm", outcome.error);
      finished();
    });
  }
}

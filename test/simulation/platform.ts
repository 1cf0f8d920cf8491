/**
 * The Durable Objects platform, simulated around the REAL classes of durable-objects/: each object
 * is constructed with `new Class(ctx, env)` over a simulated DurableObjectState (./object-state.ts)
 * and called through stubs whose every method call is an RPC the kernel delivers.
 *
 * An object runs in an incarnation. Every kernel I/O it starts (an RPC, a fetch, a D1 statement, a
 * timer) is attributed to the incarnation through AsyncLocalStorage; evicting the object kills the
 * incarnation, and the kernel never resolves its I/O again, so its memory and in-flight work are
 * gone while its storage and alarm stay. The next call or alarm constructs a fresh instance.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Kernel } from "./kernel";
import { type HeldSocket, objectState } from "./object-state";

/** One life of an object between two evictions. */
export class Incarnation {
  alive = true;
  /** Calls into it not yet answered (RPCs, the alarm). */
  inflight = 0;
  /** Kernel I/O it started that is not resolved yet. */
  pending = 0;
  readonly onDeath = new Set<() => void>();

  constructor(readonly name: string) {}

  kill(): void {
    if (!this.alive) return;
    this.alive = false;
    for (const hook of [...this.onDeath]) hook();
    this.onDeath.clear();
  }
}

/** What a call into an object evicted before it answered rejects with (the platform's reset object). */
class Evicted extends Error {
  constructor(name: string) {
    super(`${name} was evicted during the call (Durable Object reset)`);
  }
}

/** The incarnation whose code is running (undefined: the world itself, an outside caller). */
export const running = new AsyncLocalStorage<Incarnation>();

/**
 * A kernel I/O: resolved `ms` later with what `answer` gives (or rejected with what it throws),
 * unless the incarnation that started it was evicted meanwhile: then never.
 */
export function kernelIo<T>(kernel: Kernel, ms: number, answer: () => T | Promise<T>): Promise<T> {
  const owner = running.getStore();
  if (owner) owner.pending++;
  return new Promise<T>((resolve, reject) => {
    kernel.after(ms, () => {
      if (owner) {
        owner.pending--;
        if (!owner.alive) return;
      }
      try {
        Promise.resolve(answer()).then(resolve, reject);
      } catch (error) {
        reject(error);
      }
    });
  });
}

/** What the world learns from the platform (for its trace, its faults and its invariants). */
export interface PlatformHooks {
  trace(line: string): void;
  /** An object was called or alarmed in this step: the world may evict it right after (a fault). */
  touched(object: SimObject): void;
  alarmed(object: SimObject): void;
  /** A handler threw where the platform would have failed a request or retried an alarm. */
  threw(object: SimObject, where: string, error: unknown): void;
  /** An object stored `value` under `key` (a copy; undefined: deleted). */
  observe(object: SimObject, key: string, value: unknown): void;
}

/** The platform evicts an object idle this long (70 to 140 s; the seed picks within it). */
const IDLE_MIN_MS = 70_000;
const IDLE_MAX_MS = 140_000;
/** A failed alarm is retried after 2 s, 4 s, 8 s…, six times at most (the platform's documented back-off). */
const ALARM_RETRY_MS = 2_000;
const ALARM_RETRIES = 6;

type Constructor = new (ctx: DurableObjectState, env: Env) => object;

/** One Durable Object (a class and a name): its storage, alarm and sockets, and its live instance if any. */
export class SimObject {
  readonly storage = new Map<string, unknown>();
  alarm: number | null = null;
  readonly sockets = new Set<HeldSocket>();
  readonly evictions: number[] = [];
  inc: Incarnation | null = null;
  private instance: Record<string, (...args: unknown[]) => unknown> | null = null;
  private ready: Promise<unknown> = Promise.resolve();
  private alarmToken = 0;
  private alarmRunning: Incarnation | null = null;
  private alarmDeferred = false;
  private retries = 0;
  private lastActive = 0;
  private idleCheck = false;

  constructor(
    readonly kernel: Kernel,
    readonly hooks: PlatformHooks,
    private readonly Class: Constructor,
    private readonly env: () => Env,
    readonly name: string,
    /** An object whose alarms are its own clock (the follower): its steps do not keep the world busy. */
    readonly background = false,
    /** What the world calls this kind of object (its checks and faults pick objects by it). */
    readonly kind = "",
  ) {}

  /** The live instance, constructed from storage if there is none (its constructor's load holds every event). */
  activate(): { instance: Record<string, (...args: unknown[]) => unknown>; inc: Incarnation } {
    if (!this.inc || !this.instance) {
      const inc = new Incarnation(this.name);
      this.inc = inc;
      const blocks: Promise<unknown>[] = [];
      const ctx = objectState(this, inc, blocks);
      this.instance = running.run(inc, () => new this.Class(ctx, this.env())) as typeof this.instance;
      this.ready = Promise.all(blocks);
    }
    this.touch();
    return { instance: this.instance!, inc: this.inc };
  }

  /** Calls `method` on the live instance; rejects as a broken RPC does when the object is evicted first. */
  invoke(method: string, args: readonly unknown[]): Promise<unknown> {
    const { instance, inc } = this.activate();
    inc.inflight++;
    this.hooks.touched(this);
    return new Promise((resolve, reject) => {
      const broken = () => reject(new Evicted(this.name));
      inc.onDeath.add(broken);
      const finish = () => {
        inc.inflight--;
        inc.onDeath.delete(broken);
        this.touch();
      };
      running
        .run(inc, async () => {
          await this.ready;
          const fn = instance[method];
          if (typeof fn !== "function") throw new TypeError(`${this.name} has no method ${method}`);
          return fn.apply(instance, args as unknown[]);
        })
        .then(
          (value) => {
            if (!inc.alive) return;
            finish();
            resolve(value);
          },
          (error: unknown) => {
            if (!inc.alive) return;
            finish();
            reject(error);
          },
        );
    });
  }

  /**
   * An event the platform delivers (a socket's frame or close): the handler runs on the live instance (a fresh one
   * after an eviction); a handler that throws is a fault the world records.
   */
  dispatch(method: string, args: readonly unknown[]): void {
    this.invoke(method, args).catch((error: unknown) => {
      if (!(error instanceof Evicted)) this.hooks.threw(this, method, error);
    });
  }

  /** The object is evicted: its memory and in-flight work are gone, its storage, alarm and sockets stay. */
  evict(reason: string): void {
    if (!this.inc) return;
    this.inc.kill();
    this.inc = null;
    this.instance = null;
    this.evictions.push(this.kernel.now);
    this.hooks.trace(`${this.kind ? `${this.kind} ` : ""}${this.name} evicted (${reason})`);
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
    this.lastActive = this.kernel.now;
    if (this.idleCheck) return;
    this.idleCheck = true;
    this.kernel.at(this.kernel.now + IDLE_MIN_MS, () => this.checkIdle(), true);
  }

  private checkIdle(): void {
    this.idleCheck = false;
    const inc = this.inc;
    if (!inc) return;
    const idleFor = this.kernel.random.int(IDLE_MIN_MS, IDLE_MAX_MS);
    if (inc.inflight === 0 && inc.pending === 0 && this.kernel.now - this.lastActive >= idleFor) {
      this.evict("idle");
      return;
    }
    this.idleCheck = true;
    this.kernel.at(Math.max(this.kernel.now + 1000, this.lastActive + IDLE_MIN_MS), () => this.checkIdle(), true);
  }

  /** One alarm at a time: spent when it runs; one due meanwhile waits for the handler; a failed one is retried. */
  private fire(token: number): void {
    if (token !== this.alarmToken || this.alarm === null) return;
    if (this.alarmRunning?.alive) {
      this.alarmDeferred = true;
      return;
    }
    this.alarm = null;
    this.hooks.alarmed(this);
    const { inc } = this.activate();
    this.alarmRunning = inc;
    const done = (failed: unknown) => {
      if (this.alarmRunning === inc) this.alarmRunning = null;
      if (failed !== undefined) {
        if (!(failed instanceof Evicted)) this.hooks.threw(this, "alarm", failed);
        // Retried unless the handler set another alarm before it failed.
        if (this.alarm === null && this.retries < ALARM_RETRIES) {
          this.setAlarm(this.kernel.now + ALARM_RETRY_MS * 2 ** this.retries++);
          return;
        }
      } else this.retries = 0;
      if (this.alarmDeferred) {
        this.alarmDeferred = false;
        if (this.alarm !== null) this.kernel.at(this.kernel.now, () => this.fire(this.alarmToken), this.background);
      }
    };
    this.invoke("alarm", []).then(
      () => done(undefined),
      (error: unknown) => done(error ?? new Error("alarm failed")),
    );
  }
}

/**
 * The simulation's kernel: a seeded random source, a simulated clock with one queue of timed
 * steps, and coroutines (generators) that stand for the Durable Objects' async code. A coroutine
 * yields a `Wait` (an I/O, an RPC, a sleep) and is resumed by a later step of the queue, so the
 * whole world runs synchronously, in one order that the seed alone decides.
 *
 * Each object runs in an incarnation: evicting the object kills it, so none of its coroutines is
 * resumed again and an RPC waiting on it fails, exactly as an evicted Durable Object's memory and
 * in-flight work are gone while its storage and alarm stay.
 */

/** sfc32, seeded through splitmix32: small, fast and the same on every platform. */
export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    let s = seed >>> 0;
    const mix = () => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = mix();
    this.b = mix();
    this.c = mix();
    this.d = mix();
  }

  /** A number in [0, 1). */
  next(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) >>> 0;
    return t / 4294967296;
  }

  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** What a coroutine waits on: started once, it calls `done` from a later step of the queue (or at once). */
interface Wait<T> {
  start(done: (outcome: Outcome<T>) => void): void;
}

/** A coroutine: yields waits, is resumed with what each gave. */
export type Co<T> = Generator<Wait<unknown>, T, unknown>;

/** One life of an object between two evictions. */
export class Incarnation {
  alive = true;
  /** Coroutines started and not finished: an object with none is idle. */
  running = 0;
  /** Called when the incarnation dies (RPCs waiting on it fail). */
  readonly onDeath = new Set<() => void>();

  kill(): void {
    if (!this.alive) return;
    this.alive = false;
    for (const hook of [...this.onDeath]) hook();
    this.onDeath.clear();
  }
}

/** A started coroutine, like a promise: awaited with `join`. */
export class Task<T> {
  outcome: Outcome<T> | null = null;
  private readonly listeners: ((outcome: Outcome<T>) => void)[] = [];

  settle(outcome: Outcome<T>): void {
    if (this.outcome) return;
    this.outcome = outcome;
    for (const listener of this.listeners.splice(0)) listener(outcome);
  }

  then(listener: (outcome: Outcome<T>) => void): void {
    if (this.outcome) listener(this.outcome);
    else this.listeners.push(listener);
  }
}

interface Step {
  at: number;
  seq: number;
  run: () => void;
  /** Steps of the follower's own clock do not keep the world from being quiet. */
  background: boolean;
}

export class Kernel {
  now: number;
  private seq = 0;
  private readonly heap: Step[] = [];
  /** Steps taken, a bound on a run. */
  steps = 0;

  constructor(
    start: number,
    readonly random: Random,
  ) {
    this.now = start;
  }

  /** Whether the step running is a background one: what it schedules is background too, unless said otherwise. */
  private inBackground = false;

  at(at: number, run: () => void, background = this.inBackground): void {
    this.push({ at: Math.max(at, this.now), seq: this.seq++, run, background });
  }

  after(ms: number, run: () => void): void {
    this.at(this.now + ms, run);
  }

  /** The time of the next step that is not background, or null. */
  nextForeground(): number | null {
    let best: number | null = null;
    for (const step of this.heap) if (!step.background && (best === null || step.at < best)) best = step.at;
    return best;
  }

  get pending(): number {
    return this.heap.length;
  }

  /** Runs the next step; false when none is left or the next is after `until`. */
  step(until = Infinity): boolean {
    const next = this.heap[0];
    if (!next || next.at > until) return false;
    this.pop();
    this.now = next.at;
    this.steps++;
    this.inBackground = next.background;
    try {
      next.run();
    } finally {
      this.inBackground = false;
    }
    return true;
  }

  /** Starts `co` in `owner` now (it runs until its first wait, as an async function does). */
  spawn<T>(owner: Incarnation, co: Co<T>): Task<T> {
    const task = new Task<T>();
    owner.running++;
    const finish = (outcome: Outcome<T>) => {
      owner.running--;
      task.settle(outcome);
    };
    const resume = (input: Outcome<unknown>) => {
      if (!owner.alive) return;
      let result: IteratorResult<Wait<unknown>, T>;
      try {
        result = input.ok ? co.next(input.value) : co.throw(input.error);
      } catch (error) {
        finish({ ok: false, error });
        return;
      }
      if (result.done) finish({ ok: true, value: result.value });
      else {
        let resumed = false;
        result.value.start((outcome) => {
          if (resumed) return;
          resumed = true;
          resume(outcome);
        });
      }
    };
    resume({ ok: true, value: undefined });
    return task;
  }

  private push(step: Step): void {
    const heap = this.heap;
    heap.push(step);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  private pop(): void {
    const heap = this.heap;
    const last = heap.pop()!;
    if (heap.length === 0) return;
    heap[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && before(heap[l]!, heap[m]!)) m = l;
      if (r < heap.length && before(heap[r]!, heap[m]!)) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m]!, heap[i]!];
      i = m;
    }
  }
}

function before(a: Step, b: Step): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

/** An I/O that takes `ms` and then gives what `answer` returns (or throws) at that time. */
export function* io<T>(kernel: Kernel, ms: number, answer: () => T): Co<T> {
  return (yield {
    start: (done) =>
      kernel.after(ms, () => {
        let value: T;
        try {
          value = answer();
        } catch (error) {
          done({ ok: false, error });
          return;
        }
        done({ ok: true, value });
      }),
  }) as T;
}

/** Awaits a task: its value, or its error thrown. */
export function* join<T>(task: Task<T>): Co<T> {
  return (yield { start: (done) => task.then(done as (o: Outcome<T>) => void) }) as T;
}

/** Promise.all: every task's value, or the first error. */
export function* joinAll<T>(tasks: readonly Task<T>[]): Co<void> {
  if (tasks.length === 0) return;
  yield {
    start: (done) => {
      let left = tasks.length;
      for (const task of tasks)
        task.then((outcome) => {
          if (!outcome.ok) done(outcome);
          else if (--left === 0) done({ ok: true, value: undefined });
        });
    },
  };
}

/** Promise.allSettled. */
export function* joinSettled<T>(tasks: readonly Task<T>[]): Co<Outcome<T>[]> {
  if (tasks.length === 0) return [];
  return (yield {
    start: (done) => {
      const outcomes: Outcome<T>[] = [];
      let left = tasks.length;
      tasks.forEach((task, i) =>
        task.then((outcome) => {
          outcomes[i] = outcome;
          if (--left === 0) done({ ok: true, value: outcomes });
        }),
      );
    },
  }) as Outcome<T>[];
}

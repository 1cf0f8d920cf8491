/**
 * The simulation's kernel: a seeded random source, a simulated clock with one queue of timed
 * steps, and the rule that makes real async code deterministic: after each step the kernel lets
 * the microtask queue run dry (a macrotask of the ORIGINAL setTimeout: every promise continuation
 * queued by the step has run by then), and resolves the few real platform promises the code awaits
 * (Web Crypto) in the order they were started, never in the order the platform finished them.
 *
 * Every I/O the code under test does (an RPC, a fetch, a D1 statement, a timer) is a promise the
 * kernel resolves from a later step, at a simulated time the seed chose; so the whole world runs
 * in one order that the seed alone decides.
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

interface Step {
  at: number;
  seq: number;
  run: () => void;
  /** Steps of the follower's own clock do not keep the world from being quiet. */
  background: boolean;
}

/** A real platform promise the code awaits, handed on by the kernel in the order it was started. */
interface External {
  real: Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Microtask hops without anything new scheduled after which a step's continuations are taken to have run. */
const HOPS = 24;

export class Kernel {
  now: number;
  private seq = 0;
  private readonly heap: Step[] = [];
  private externals: External[] = [];
  /** Grows with every step queued and every platform promise started: settle() runs until it stops growing. */
  private progress = 0;
  /** Steps taken, a bound on a run. */
  steps = 0;
  /** Whether the step running is a background one: what it schedules is background too, unless said otherwise. */
  private inBackground = false;

  constructor(
    start: number,
    readonly random: Random,
  ) {
    this.now = start;
  }

  at(at: number, run: () => void, background = this.inBackground): void {
    this.progress++;
    this.push({ at: Math.max(at, this.now), seq: this.seq++, run, background });
  }

  after(ms: number, run: () => void, background = this.inBackground): void {
    this.at(this.now + ms, run, background);
  }

  /** The time of the next step that is not background, or null. */
  nextForeground(): number | null {
    let best: number | null = null;
    for (const step of this.heap) if (!step.background && (best === null || step.at < best)) best = step.at;
    return best;
  }

  /** A real promise of the platform (Web Crypto), handed on in call order once every one started has finished. */
  external<T>(real: Promise<T>): Promise<T> {
    this.progress++;
    return new Promise<T>((resolve, reject) => {
      this.externals.push({ real, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  /** Runs the next step and everything it set off; false when none is left or the next is after `until`. */
  async step(until = Infinity): Promise<boolean> {
    const next = this.heap[0];
    if (!next || next.at > until) return false;
    this.pop();
    this.now = next.at;
    this.steps++;
    this.inBackground = next.background;
    try {
      next.run();
      await this.settle();
    } finally {
      this.inBackground = false;
    }
    return true;
  }

  /**
   * Lets every continuation the step queued run, and hands on the platform's promises in order, until
   * none is left: microtask hops until HOPS of them in a row schedule nothing new (far more than the
   * deepest chain of awaits between two kernel I/Os in the code), then, if the platform's promises are
   * pending, a macrotask of the original setTimeout after they have all finished.
   */
  async settle(): Promise<void> {
    for (;;) {
      let seen = -1;
      while (seen !== this.progress) {
        seen = this.progress;
        for (let i = 0; i < HOPS; i++) await undefined;
      }
      if (this.externals.length === 0) return;
      const batch = this.externals;
      this.externals = [];
      const outcomes = await Promise.allSettled(batch.map((e) => e.real));
      this.progress++;
      outcomes.forEach((outcome, i) =>
        outcome.status === "fulfilled" ? batch[i]!.resolve(outcome.value) : batch[i]!.reject(outcome.reason),
      );
    }
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

/**
 * The Durable Object namespaces the objects are given as `env.<NAMESPACE>`: `idFromName`, `get`
 * and `getByName`, whose stubs are Proxies. Each method call on a stub is an RPC the kernel
 * delivers after a seeded latency each way, its arguments and its result passed through
 * structuredClone (as the platform serializes them); it fails when the callee is evicted before it
 * answers, or while the fault plan makes the namespace unreachable.
 */
import type { Kernel } from "./kernel";
import { type Incarnation, running, type SimObject } from "./platform";

/** The platform's classes as they were before a run replaced any global. */
const RealResponse = Response;
const RealRequest = Request;

/** An RPC's latency each way, in ms. */
const LATENCY_MIN_MS = 1;
const LATENCY_MAX_MS = 25;

/** A namespace of the world: its objects by name, created on first use. */
export class SimNamespace {
  readonly objects = new Map<string, SimObject>();

  constructor(
    private readonly kernel: Kernel,
    private readonly create: (name: string) => SimObject,
    /** Whether a call made now fails without reaching the object (a fault window). */
    private readonly unreachable: (caller: Incarnation | undefined) => boolean = () => false,
    /** How many extra copies of a call of `method` arrive, later and in any order (a fault window). */
    private readonly copies: (method: string) => number = () => 0,
    /** A call of `method` made now: refused before it reaches the object (a string: why), or slowed by ms. */
    private readonly weather: (method: string) => { refuse?: string; slowMs?: number } = () => ({}),
  ) {}

  object(name: string): SimObject {
    let object = this.objects.get(name);
    if (!object) {
      object = this.create(name);
      this.objects.set(name, object);
    }
    return object;
  }

  idFromName(name: string): { name: string; toString(): string; equals(other: { name?: string }): boolean } {
    return { name, toString: () => name, equals: (other) => other.name === name };
  }

  /** An id from its `toString()` (the world's ids are their names). */
  idFromString(text: string): { name: string; toString(): string; equals(other: { name?: string }): boolean } {
    return this.idFromName(text);
  }

  get(id: { name: string }): Record<string, (...args: unknown[]) => Promise<unknown>> {
    return this.stub(id.name);
  }

  getByName(name: string): Record<string, (...args: unknown[]) => Promise<unknown>> {
    return this.stub(name);
  }

  /** A stub: every property is a method whose call is an RPC (never a thenable, so it can be awaited as a value). */
  stub(name: string): Record<string, (...args: unknown[]) => Promise<unknown>> {
    return new Proxy(
      {},
      {
        get: (_target, method) =>
          typeof method !== "string" || method === "then"
            ? undefined
            : (...args: unknown[]) => this.call(name, method, args),
      },
    );
  }

  /** One RPC: there after a latency, the answer (or the failure) back after another. */
  call(name: string, method: string, args: readonly unknown[]): Promise<unknown> {
    const kernel = this.kernel;
    const caller = running.getStore();
    if (caller) caller.pending++;
    const sent = wireCopy(args);
    const weather = this.weather(method);
    for (let n = this.copies(method); n > 0; n--)
      kernel.after(
        kernel.random.int(0, 3_000),
        () =>
          void this.object(name)
            .invoke(method, sent)
            .catch(() => {}),
      );
    return new Promise((resolve, reject) => {
      const back = (settle: () => void) =>
        kernel.after(kernel.random.int(LATENCY_MIN_MS, LATENCY_MAX_MS), () => {
          if (caller) {
            caller.pending--;
            if (!caller.alive) return;
          }
          settle();
        });
      kernel.after(kernel.random.int(LATENCY_MIN_MS, LATENCY_MAX_MS), () => {
        if (caller && !caller.alive) {
          caller.pending--;
          return;
        }
        if (this.unreachable(caller)) {
          back(() => reject(new Error(`${name} could not be reached (network connection lost)`)));
          return;
        }
        if (weather.refuse) {
          back(() => reject(new Error(`${name}: ${weather.refuse}`)));
          return;
        }
        const invoke = () =>
          this.object(name)
            .invoke(method, sent)
            .then(
              (value) => {
                const answer = wireCopy(value);
                back(() => resolve(answer));
              },
              (error: unknown) => {
                // The platform passes an error on by its message (a new Error on the caller's side).
                const message = error instanceof Error ? error.message : String(error);
                back(() => reject(new Error(message)));
              },
            );
        if (weather.slowMs) kernel.after(weather.slowMs, invoke);
        else invoke();
      });
    });
  }
}

/**
 * An RPC's arguments or result as the platform passes them: data through structuredClone; a stream, a Request,
 * a Response or a socket by reference (the platform streams these across; a structured clone would refuse them).
 */
function wireCopy<T>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  if (byReference(value)) return value;
  if (Array.isArray(value)) return value.map(wireCopy) as T;
  if (Object.getPrototypeOf(value) === Object.prototype && Object.values(value).some(holdsReference))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, wireCopy(v)])) as T;
  return structuredClone(value);
}

const byReference = (value: object) =>
  value instanceof ReadableStream ||
  value instanceof RealRequest ||
  value instanceof RealResponse ||
  "webSocket" in value;

function holdsReference(value: unknown): boolean {
  if (value === null || typeof value !== "object") return false;
  if (byReference(value)) return true;
  return Array.isArray(value) ? value.some(holdsReference) : false;
}

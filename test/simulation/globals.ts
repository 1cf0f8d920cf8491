/**
 * The globals the code under test reads, put under the kernel for one run and restored after it:
 * the clock (`Date.now`, `new Date()`), timers (`setTimeout`/`clearTimeout`, `AbortSignal.timeout`,
 * `scheduler.wait`), `fetch` (the receiver and the chain's nodes, served by the kernel), seeded ids
 * (`crypto.randomUUID`, `crypto.getRandomValues`), and Web Crypto's promises, handed on by the
 * kernel in the order they were started (./kernel.ts).
 */
import { DurableObject } from "cloudflare:workers";
import { ChainFollower } from "../../durable-objects/onboardings/ChainFollower";
import { IdempotencyKey } from "../../durable-objects/onboardings/IdempotencyKey";
import { PushObject } from "../../durable-objects/push";
import { WebhookLane } from "../../durable-objects/onboardings/WebhookLane";
import { resetGatewayState } from "../../src/gateway";
import type { Kernel } from "./kernel";
import { kernelIo, running } from "./platform";
import { NODE_URLS, RECEIVER_URL, type SimChain, type SimReceiver } from "./services";

const RealDate = Date;

/** Replaces the globals for a run; the function returned puts the originals back. */
export function installGlobals(
  kernel: Kernel,
  receiver: SimReceiver,
  chain: SimChain,
  faulted: (line: string) => void,
): () => void {
  const g = globalThis as unknown as Record<string, unknown>;
  const replace = (owner: object, key: string, value: unknown) => {
    const before = Object.getOwnPropertyDescriptor(owner, key);
    Object.defineProperty(owner, key, { value, configurable: true, writable: true });
    return () => {
      if (before) Object.defineProperty(owner, key, before);
      else delete (owner as Record<string, unknown>)[key];
    };
  };
  const restores: (() => void)[] = [];

  class SimDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(kernel.now);
      else super(...(args as [string]));
    }
    static override now(): number {
      return kernel.now;
    }
  }
  restores.push(replace(g, "Date", SimDate));

  let timerId = 0;
  const timers = new Set<number>();
  restores.push(
    replace(g, "setTimeout", (fn: (...args: unknown[]) => void, ms = 0, ...args: unknown[]) => {
      const id = ++timerId;
      timers.add(id);
      void kernelIo(kernel, Math.max(0, ms), () => {
        if (timers.delete(id)) fn(...args);
      });
      return id;
    }),
  );
  restores.push(replace(g, "clearTimeout", (id: number) => void timers.delete(id)));
  restores.push(
    replace(AbortSignal, "timeout", (ms: number) => {
      const controller = new AbortController();
      void kernelIo(kernel, ms, () =>
        controller.abort(new DOMException(`The operation timed out after ${ms} ms`, "TimeoutError")),
      );
      return controller.signal;
    }),
  );
  const scheduler = g.scheduler as { wait?: unknown } | undefined;
  if (scheduler) restores.push(replace(scheduler, "wait", (ms: number) => kernelIo(kernel, ms, () => undefined)));

  restores.push(
    replace(g, "fetch", (input: string | URL | Request, init?: RequestInit) =>
      simFetch(kernel, receiver, chain, input, init),
    ),
  );

  const crypto = (globalThis as unknown as { crypto: Crypto }).crypto;
  restores.push(replace(crypto, "randomUUID", () => seededUuid(kernel)));
  restores.push(
    replace(crypto, "getRandomValues", <T extends ArrayBufferView | null>(array: T) => {
      if (array) {
        const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
        for (let i = 0; i < bytes.length; i++) bytes[i] = kernel.random.int(0, 255);
      }
      return array;
    }),
  );
  const subtle = crypto.subtle;
  for (const method of ["importKey", "sign", "verify", "digest"] as const) {
    const real = subtle[method].bind(subtle) as (...args: unknown[]) => Promise<unknown>;
    restores.push(replace(subtle, method, (...args: unknown[]) => kernel.external(real(...args))));
  }
  restores.push(simulatedBase());
  // The code's log lines: warnings are the world's weather (thousands in a crowd), an error is a fault of the code.
  restores.push(replace(console, "log", () => {}));
  restores.push(replace(console, "warn", () => {}));
  restores.push(replace(console, "error", (line: unknown) => faulted(String(line))));
  // The upstream board of the isolate and the gateway's other isolate state start empty in every seed.
  resetGatewayState();
  return () => {
    for (const restore of restores.reverse()) restore();
    resetGatewayState();
  };
}

/**
 * The platform's DurableObject base class refuses a state it did not make; for the run, the
 * classes that extend it directly extend a base that keeps `ctx` and `env` as it does (a class's
 * `super()` calls its constructor's prototype as it is at that moment). The classes are not changed.
 */
class SimulatedBase {
  constructor(
    readonly ctx: DurableObjectState,
    readonly env: Env,
  ) {}
}

function simulatedBase(): () => void {
  const classes: object[] = [PushObject, WebhookLane, ChainFollower, IdempotencyKey];
  for (const Class of classes) {
    Object.setPrototypeOf(Class, SimulatedBase);
    Object.setPrototypeOf((Class as { prototype: object }).prototype, SimulatedBase.prototype);
  }
  return () => {
    for (const Class of classes) {
      Object.setPrototypeOf(Class, DurableObject);
      Object.setPrototypeOf((Class as { prototype: object }).prototype, DurableObject.prototype);
    }
  };
}

/** A version-4 UUID from the seed. */
function seededUuid(kernel: Kernel): string {
  const hex = Array.from({ length: 32 }, () => kernel.random.int(0, 15).toString(16));
  hex[12] = "4";
  hex[16] = ((kernel.random.int(0, 3) & 0x3) | 0x8).toString(16);
  const s = hex.join("");
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

/** fetch in the world: the receiver or a node answers through the kernel; the signal's abort rejects. */
function simFetch(
  kernel: Kernel,
  receiver: SimReceiver,
  chain: SimChain,
  input: string | URL | Request,
  init: RequestInit = {},
): Promise<Response> {
  const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
  const signal = init.signal ?? null;
  const owner = running.getStore();
  return new Promise<Response>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled || (owner && !owner.alive)) return;
      settled = true;
      fn();
    };
    signal?.addEventListener("abort", () => settle(() => reject(signal.reason)));
    const served =
      url.href === RECEIVER_URL
        ? receiver.serve(String(init.body ?? ""), new Headers(init.headers))
        : NODE_URLS.some((base) => url.href.startsWith(base))
          ? chain.serve(url)
          : Promise.reject(new TypeError(`fetch to ${url.origin}: no such host in the world`));
    if (served === "hang") return;
    if (served === "unreachable") {
      void kernelIo(kernel, kernel.random.int(1, 30), () =>
        settle(() => reject(new Error("Network connection lost."))),
      );
      return;
    }
    served.then(
      (response) => settle(() => resolve(response)),
      (error: unknown) => settle(() => reject(error)),
    );
  });
}

/**
 * The globals the code under test reads, put under the kernel for one run and restored after it:
 * the clock (`Date.now`, `new Date()`), timers (`setTimeout`/`clearTimeout`, `AbortSignal.timeout`,
 * `scheduler.wait`), `fetch` (the receiver and the chain's nodes, served by the kernel), seeded ids
 * (`crypto.randomUUID`, `crypto.getRandomValues`), and Web Crypto's promises, handed on by the
 * kernel in the order they were started (./kernel.ts).
 */
import { DurableObject } from "cloudflare:workers";
import { QueryShield } from "../../durable-objects/gateway/QueryShield";
import { UpstreamHealth } from "../../durable-objects/gateway/UpstreamHealth";
import { LiveFeed } from "../../durable-objects/live/LiveFeed";
import { LiveShard } from "../../durable-objects/live/LiveShard";
import { ChainFollower } from "../../durable-objects/onboardings/ChainFollower";
import { IdempotencyKey } from "../../durable-objects/onboardings/IdempotencyKey";
import { PushObject } from "../../durable-objects/push";
import { WebhookLane } from "../../durable-objects/onboardings/WebhookLane";
import { resetGatewayState } from "../../src/gateway";
import type { Kernel } from "./kernel";
import { kernelIo, running } from "./platform";
import { NODE_URLS, RECEIVER_URL, type SimChain, type SimReceiver } from "./services";
import { RPC_NODE_URLS, type SimNode } from "./sim-node";
import { ClientEnd, OutboundSocket, socketPair } from "./sockets";

/** What the world gives the globals: its services, and where the code's log lines go. */
export interface GlobalsHost {
  kernel: Kernel;
  receiver: SimReceiver;
  chain: SimChain;
  nodes: readonly SimNode[];
  /** An error-level line, or a warning that carries a fault of the code (a TypeError): the run fails. */
  faulted(line: string): void;
  /** A warning: the world's weather, counted by its event. */
  warned(line: string): void;
}

const RealDate = Date;

/** Replaces the globals for a run; the function returned puts the originals back. */
export function installGlobals(host: GlobalsHost): () => void {
  const { kernel, receiver, chain, nodes, faulted, warned } = host;
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
      // The callback runs in the object that set the timer (what it starts is that incarnation's, as on the platform).
      const owner = running.getStore();
      void kernelIo(kernel, Math.max(0, ms), () => {
        if (!timers.delete(id)) return;
        if (owner) running.run(owner, () => fn(...args));
        else fn(...args);
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
      simFetch(kernel, receiver, chain, nodes, input, init),
    ),
  );
  restores.push(...liveGlobals(kernel, replace));

  // The door picks a subscriber's shard with Math.random: seeded too.
  restores.push(replace(Math, "random", () => kernel.random.next()));
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
  // The code's log lines: a warning is the world's weather (thousands in a crowd), counted, unless it carries a fault
  // of the code (a TypeError or ReferenceError caught and logged as a warning); an error-level line is a fault.
  const codeFault = /TypeError|ReferenceError|is not a function|Cannot read properties/;
  restores.push(
    replace(console, "log", (line: unknown) => {
      if (codeFault.test(String(line))) faulted(String(line));
    }),
  );
  restores.push(
    replace(console, "warn", (line: unknown) => (codeFault.test(String(line)) ? faulted : warned)(String(line))),
  );
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
  const classes: object[] = [
    PushObject,
    WebhookLane,
    ChainFollower,
    IdempotencyKey,
    QueryShield,
    UpstreamHealth,
    LiveFeed,
    LiveShard,
  ];
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
  nodes: readonly SimNode[],
  input: string | URL | Request,
  init: RequestInit = {},
): Promise<Response> {
  const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
  const signal = init.signal ?? (input instanceof Request ? input.signal : null);
  const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
  const node = nodes.find((n) => url.href.startsWith(RPC_NODE_URLS[n.index]!));
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
    if (node && headers.get("upgrade")?.toLowerCase() === "websocket") {
      // An upgrade: the node's socket after a round trip. Whether the platform ends an upgraded socket when the
      // fetch's signal aborts later was seen under wrangler dev only: a seed decides (./live-faults.ts).
      void kernelIo(kernel, kernel.random.int(20, 150), () => {
        // A caller that gave up (its signal aborted) or died meanwhile takes no socket.
        if (settled || (owner && !owner.alive)) return;
        const socket = node.upgrade(url.href, owner ?? null);
        if (socket === "unreachable") return settle(() => reject(new Error("Network connection lost.")));
        if (node.faults.abortEndsUpgrade)
          signal?.addEventListener("abort", () => socket.drop(1006, "the upgrade's signal aborted"));
        settle(() => resolve({ status: 101, ok: false, headers: new Headers(), webSocket: socket } as never));
      });
      return;
    }
    const served = node
      ? node.read(url)
      : url.href === RECEIVER_URL
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

/**
 * The platform's pieces of the live face, under the kernel for a run: `WebSocketPair` (./sockets.ts), a
 * Response that carries a simulated socket (a 101), the Cache API as a map on the world's clock, and the reads
 * of a Request's or Response's body, which the platform finishes outside the microtask queue: each is a real
 * promise handed on by the kernel in the order it was started, as Web Crypto's are.
 */
function liveGlobals(kernel: Kernel, replace: (owner: object, key: string, value: unknown) => () => void) {
  const g = globalThis as unknown as Record<string, unknown>;
  const restores: (() => void)[] = [];
  let pairs = 0;
  restores.push(
    replace(g, "WebSocketPair", function WebSocketPair() {
      return socketPair(kernel, `socket ${++pairs}`);
    }),
  );
  const RealResponse = g.Response as typeof Response;
  class SimResponse extends RealResponse {
    constructor(body?: BodyInit | null, init?: ResponseInit & { webSocket?: unknown }) {
      const socket = init?.webSocket;
      if (socket instanceof ClientEnd || socket instanceof OutboundSocket) {
        // A 101 with a simulated socket is no platform Response: the plain object stands for it.
        return { status: 101, ok: false, headers: new Headers(init?.headers), webSocket: socket } as never;
      }
      super(body, init);
    }
  }
  restores.push(replace(g, "Response", SimResponse));
  for (const Body of [RealResponse, g.Request as typeof Request])
    for (const method of ["text", "json", "arrayBuffer", "bytes"] as const) {
      const real = Body.prototype[method as "text"] as ((this: Body) => Promise<unknown>) | undefined;
      if (!real) continue;
      restores.push(
        replace(Body.prototype, method, function (this: Body) {
          return kernel.external(real.call(this));
        }),
      );
    }
  const cache = new SimCache(kernel);
  const storage = g.caches as object;
  restores.push(replace(storage, "default", cache));
  return restores;
}

/** The Cache API's default cache on the world's clock: an entry lives for its `max-age`; one per seed. */
class SimCache {
  private readonly entries = new Map<
    string,
    { status: number; headers: [string, string][]; body: string; until: number }
  >();

  constructor(private readonly kernel: Kernel) {}

  async match(key: string | Request): Promise<Response | undefined> {
    const entry = this.entries.get(typeof key === "string" ? key : key.url);
    if (!entry || entry.until <= this.kernel.now) return undefined;
    return new Response(entry.body, { status: entry.status, headers: entry.headers });
  }

  async put(key: string | Request, response: Response): Promise<void> {
    const maxAge = Number(/max-age=(\d+)/.exec(response.headers.get("cache-control") ?? "")?.[1] ?? 0);
    const body = await response.text();
    this.entries.set(typeof key === "string" ? key : key.url, {
      status: response.status,
      headers: [...response.headers],
      body,
      until: this.kernel.now + maxAge * 1000,
    });
  }

  async delete(key: string | Request): Promise<boolean> {
    return this.entries.delete(typeof key === "string" ? key : key.url);
  }
}

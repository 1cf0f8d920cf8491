/**
 * The simulated DurableObjectState an object of durable-objects/ is constructed with: its id, its
 * storage (the KV API the classes use, values passed through structuredClone as the platform
 * serializes them), its one alarm, blockConcurrencyWhile, waitUntil and hibernatable WebSockets.
 *
 * Storage operations resolve at once (the input gate: nothing else runs in the object until its
 * event awaits a kernel I/O) and are durable when the step ends (the output gate: an eviction falls
 * between steps, never inside one, so a step's writes are never lost while its answer goes out).
 */
import type { Incarnation, SimObject } from "./platform";
import { ServerEnd } from "./sockets";

/** A socket an object holds through the Hibernation API: a page's subscription or a live subscriber's. */
export type HeldSocket = SimSocket | ServerEnd;

/** A page's subscription: records what it was sent and whether it was closed. */
class SimSocket {
  readonly sent: string[] = [];
  tags: string[] = [];
  closed: { code: number; reason: string } | null = null;

  send(message: string): void {
    if (this.closed) throw new TypeError("the socket is closed");
    this.sent.push(message);
  }

  close(code = 1000, reason = ""): void {
    if (this.closed) throw new TypeError("the socket is already closed");
    this.closed = { code, reason };
  }
}

const copy = <T>(value: T): T => (value === undefined ? value : structuredClone(value));

/** The state of `object`'s incarnation `inc`; `blocks` collects what blockConcurrencyWhile holds events for. */
export function objectState(object: SimObject, inc: Incarnation, blocks: Promise<unknown>[]): DurableObjectState {
  const store = object.storage;
  const live = () => {
    // An evicted instance's writes go nowhere: its storage belongs to the next incarnation.
    if (!inc.alive) throw new Error(`${object.name}: storage used after the object was reset`);
  };
  const storage = {
    async get(key: string | string[]) {
      live();
      if (Array.isArray(key)) return new Map(key.filter((k) => store.has(k)).map((k) => [k, copy(store.get(k))]));
      return copy(store.get(key));
    },
    async put(key: string | Record<string, unknown>, value?: unknown) {
      live();
      const entries = typeof key === "string" ? [[key, value] as const] : Object.entries(key);
      for (const [k, v] of entries) {
        store.set(k, copy(v));
        object.hooks.observe(object, k, store.get(k));
      }
    },
    async delete(key: string | string[]) {
      live();
      if (!Array.isArray(key)) return store.delete(key);
      let n = 0;
      for (const k of key) if (store.delete(k)) n++;
      return n;
    },
    async list(options: { prefix?: string } = {}) {
      live();
      const keys = [...store.keys()].filter((k) => k.startsWith(options.prefix ?? "")).sort();
      return new Map(keys.map((k) => [k, copy(store.get(k))]));
    },
    async deleteAll() {
      live();
      store.clear();
    },
    async getAlarm() {
      live();
      return object.alarm;
    },
    async setAlarm(at: number | Date) {
      live();
      object.setAlarm(typeof at === "number" ? at : at.getTime());
    },
    async deleteAlarm() {
      live();
      object.deleteAlarm();
    },
  };
  const id = {
    name: object.name,
    toString: () => object.name,
    equals: (other: { name?: string }) => other.name === object.name,
  };
  const state = {
    id,
    storage,
    blockConcurrencyWhile<T>(callback: () => Promise<T>): Promise<T> {
      const held = callback();
      blocks.push(held);
      return held;
    },
    waitUntil(_promise: Promise<unknown>): void {},
    acceptWebSocket(socket: HeldSocket, tags: string[] = []): void {
      socket.tags = [...tags];
      if (socket instanceof ServerEnd) socket.object = object;
      object.sockets.add(socket);
    },
    getWebSockets(tag?: string): HeldSocket[] {
      // The newest first, as workerd lists them.
      return [...object.sockets]
        .filter((s) => s.closed === null && (tag === undefined || s.tags.includes(tag)))
        .reverse();
    },
    getTags(socket: HeldSocket): string[] {
      return [...socket.tags];
    },
    setWebSocketAutoResponse(): void {},
  };
  return state as unknown as DurableObjectState;
}

/**
 * Request coalescing: concurrent work for one key in this isolate shares a single promise, so
 * 100 simultaneous misses make one upstream request. Scope: one isolate; other isolates and
 * other data centers each make their own.
 */

const inflight = new Map<string, Promise<unknown>>();

/** True while work for `key` is under way in this isolate. */
export function isInflight(key: string): boolean {
  return inflight.has(key);
}

/**
 * Runs `work` for `key` unless it is already running, and returns the shared result. The
 * promise is handed to `waitUntil` so it completes even if the request that started it goes
 * away; the result must be plain data (no Response or stream), which any request may read.
 */
export function coalesce<T>(key: string, ctx: ExecutionContext, work: () => Promise<T>): Promise<T> {
  const running = inflight.get(key);
  if (running) return running as Promise<T>;
  const shared = work().finally(() => {
    if (inflight.get(key) === shared) inflight.delete(key);
  });
  inflight.set(key, shared);
  ctx.waitUntil(shared.catch(() => undefined));
  return shared;
}

/** Forgets every running key (tests start from nothing; the work itself runs on). */
export function resetInflight(): void {
  inflight.clear();
}

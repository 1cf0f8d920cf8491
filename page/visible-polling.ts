/**
 * Looks again every few seconds while someone can see the page: pauses once the page has been
 * hidden for `hiddenLimitMs` and looks at once when it is shown again, and gives up after
 * `limitMs` of looking, so no watch runs unbounded.
 */

/** A running watch. */
export interface Polling {
  stop(): void;
}

/** Options of `pollWhileVisible`. */
export interface PollingOptions {
  intervalMs: number;
  /** The longest one watch looks before `onGaveUp`. */
  limitMs: number;
  /** Hidden this long, the watch pauses until the page is shown again (default 60 s). */
  hiddenLimitMs?: number;
  onGaveUp(): void;
}

/**
 * Calls `look` now and then every `intervalMs` until it answers "done"; a throw from `look`
 * counts as "again" (the caller shows what went wrong).
 */
export function pollWhileVisible(look: () => Promise<"done" | "again">, options: PollingOptions): Polling {
  const hiddenLimit = options.hiddenLimitMs ?? 60_000;
  let startedAt = Date.now();
  let hiddenSince: number | null = document.hidden ? Date.now() : null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let paused = false;
  let stopped = false;

  const stop = () => {
    stopped = true;
    clearTimeout(timer);
    document.removeEventListener("visibilitychange", onVisibility);
  };
  const run = async () => {
    if (stopped) return;
    if (hiddenSince !== null && Date.now() - hiddenSince >= hiddenLimit) {
      paused = true;
      return;
    }
    if (Date.now() - startedAt >= options.limitMs) {
      stop();
      return options.onGaveUp();
    }
    const outcome = await look().catch(() => "again" as const);
    if (outcome === "done") return stop();
    if (!stopped) timer = setTimeout(run, options.intervalMs);
  };
  function onVisibility() {
    if (document.hidden) {
      hiddenSince = Date.now();
      return;
    }
    hiddenSince = null;
    if (paused) {
      paused = false;
      startedAt = Date.now();
      void run();
    }
  }
  document.addEventListener("visibilitychange", onVisibility);
  void run();
  return { stop };
}

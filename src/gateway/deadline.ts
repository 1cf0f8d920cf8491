/** A bounded wait: the gateway never waits on another tier longer than it decided to. */

/** `work`, or a rejection naming `what` once `ms` have passed (then `onLate` runs). */
export function within<T>(work: Promise<T>, ms: number, what: string, onLate?: () => void): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onLate?.();
      reject(new Error(what));
    }, ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

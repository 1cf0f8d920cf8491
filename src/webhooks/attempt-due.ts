/**
 * No event is given up without an attempt of its own. An event held by a failing endpoint gets
 * attempts only as the lane's probe, one onboarding at a time; on the outage's slow cadence (every
 * 5 minutes after 10 hours: 864 probes in 3 days) more onboardings than that would reach their 3
 * days unprobed. So each waiting onboarding whose oldest event was never attempted tells the lane
 * when that attempt is due (3 days after the event was first held): the probe goes to the earliest
 * due first, and the lane probes at its fastest rate, one every 5 s, whenever the attempts due could
 * not otherwise all be made by their time (earliest deadline first: the i-th earliest due must come
 * no sooner than i probes from now).
 */
/** What the lane knows of a waiting onboarding's attempt due (its Waiter's `due`). */
interface Due {
  due?: number | null;
}

/** The waiting onboarding whose attempt comes due first, or null when none is due. */
export function earliestDue(waiting: ReadonlyMap<string, Due>): string | null {
  let best: string | null = null;
  let at = Infinity;
  for (const [id, waiter] of waiting) {
    if (waiter.due != null && waiter.due < at) {
      best = id;
      at = waiter.due;
    }
  }
  return best;
}

/**
 * True when the attempts due could not all be made by their time unless the lane probes every `probeMs` from now: the
 * i-th earliest due (from 1) is within i probes.
 */
export function attemptsPressing(waiting: ReadonlyMap<string, Due>, now: number, probeMs: number): boolean {
  const dues: number[] = [];
  for (const waiter of waiting.values()) if (waiter.due != null) dues.push(waiter.due);
  dues.sort((a, b) => a - b);
  return dues.some((due, i) => due <= now + (i + 1) * probeMs);
}

/**
 * The bounded fan-out: a Durable Object telling many others something (the lane's releases, the
 * follower's hints, the host's retry) calls `each` for every item, at most FAN_OUT_WIDTH at a
 * time, so telling thousands never opens thousands of requests at once. Each call settles on its
 * own; the results come back in the items' order.
 */
export async function fanOut<T, R>(
  items: readonly T[],
  each: (item: T) => Promise<R>,
): Promise<PromiseSettledResult<R>[]> {
  const results: PromiseSettledResult<R>[] = [];
  for (let i = 0; i < items.length; i += FAN_OUT_WIDTH)
    results.push(...(await Promise.allSettled(items.slice(i, i + FAN_OUT_WIDTH).map(each))));
  return results;
}

/** How many requests a Durable Object sends side by side at most when it tells many others something. */
const FAN_OUT_WIDTH = 50;

/**
 * A bounded fan-out: `each` is called for every item, at most `width` at a time, so a Durable
 * Object telling thousands of others something never opens thousands of requests at once.
 * Each call settles on its own; the results come back in the items' order.
 */
export async function inBatches<T, R>(
  items: readonly T[],
  width: number,
  each: (item: T) => Promise<R>,
): Promise<PromiseSettledResult<R>[]> {
  const results: PromiseSettledResult<R>[] = [];
  for (let i = 0; i < items.length; i += width)
    results.push(...(await Promise.allSettled(items.slice(i, i + width).map(each))));
  return results;
}

/** How many requests a Durable Object sends side by side at most when it tells many others something. */
export const FAN_OUT_WIDTH = 50;

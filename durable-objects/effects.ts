/**
 * How a Durable Object carries out what its machine decided: every effect in order, with no
 * await between them (writes stay under the output gate), collecting the work some effects start
 * (a read, a delivery) for the caller to await.
 */
export function performEach<Effect>(
  effects: readonly Effect[],
  perform: (effect: Effect) => Promise<void> | undefined,
): Promise<void>[] {
  const work: Promise<void>[] = [];
  for (const effect of effects) {
    const started = perform(effect);
    if (started) work.push(started);
  }
  return work;
}

/**
 * How a Durable Object carries out what its machine decided: every effect in order, with no
 * await between them (writes stay under the output gate), collecting the work some effects start
 * (a read, a delivery) for the caller to await.
 */
export function performEach<Effect, Found = void>(
  effects: readonly Effect[],
  perform: (effect: Effect) => Promise<Found> | undefined,
): Promise<Found>[] {
  const work: Promise<Found>[] = [];
  for (const effect of effects) {
    const started = perform(effect);
    if (started) work.push(started);
  }
  return work;
}

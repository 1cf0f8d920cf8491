/**
 * A shard's compiled queries, counted by the subscriptions that hold their text: a query is compiled
 * when an event first meets it and dropped as soon as no subscription holds it, so subscribing and
 * unsubscribing in a loop leaves nothing behind.
 */
import { type SubscriptionQuery, subscriptionQuery } from "./query/subscription-query";

interface Held {
  count: number;
  compiled: SubscriptionQuery | null;
}

export class CompiledQueries {
  private readonly held = new Map<string, Held>();

  /** A subscription holds `text`. */
  hold(text: string): void {
    const entry = this.held.get(text);
    if (entry) entry.count += 1;
    else this.held.set(text, { count: 1, compiled: null });
  }

  /** A subscription that held `text` is gone. */
  release(text: string): void {
    const entry = this.held.get(text);
    if (!entry) return;
    if (--entry.count <= 0) this.held.delete(text);
  }

  /** No subscription holds anything. */
  clear(): void {
    this.held.clear();
  }

  /** The compiled form of a held query (compiled on first use). */
  query(text: string): SubscriptionQuery {
    const entry = this.held.get(text);
    if (!entry) return subscriptionQuery(text);
    return (entry.compiled ??= subscriptionQuery(text));
  }

  /** Distinct query texts held. */
  get size(): number {
    return this.held.size;
  }
}

/**
 * The chain follower's decisions, pure: which blocks to read after learning the head, whom a
 * block's transactions name, when to give up following and when to take it up again. One
 * follower per network reads each block once for every waiting onboarding, instead of every
 * onboarding reading the chain for itself.
 *
 * Hints from blocks, truth from state: a block only ever wakes an onboarding, which then reads its
 * own state queries; nothing here decides what the chain says about it.
 */

/** Blocks read in order on one pass at most; further behind, the follower jumps to the head. */
const MAX_CATCH_UP_BLOCKS = 20;
/** Consecutive failed passes after which waiting onboardings are told to check for themselves. */
const FAIL_OPEN_AFTER = 3;
/**
 * Starting (or waking from sleep), the follower reads this many blocks before the head too: those since the waiting
 * onboardings' own last reads.
 */
const START_BLOCKS_BACK = 3;
/** The latest height is asked at most this often. */
export const PASS_MS = 1000;
/** A follower that has not completed a pass for this long does not claim to be following. */
const SILENT_MS = 30_000;
/**
 * A registration is a lease: one not renewed for this long is dropped, and with the last one the
 * follower sleeps. A waiting onboarding renews it with each of its own checks (at least every
 * 10 minutes, the safety net's cadence) and with each hint it answers as still waiting, so the
 * lease outlives two missed renewals.
 */
export const FOLLOW_LEASE_MS = 30 * 60_000;

/** The onboardings whose registration (last renewed at the time each maps to) has lapsed at `now`. */
export function lapsed(renewed: ReadonlyMap<string, number>, now: number): string[] {
  return [...renewed].filter(([, at]) => now - at >= FOLLOW_LEASE_MS).map(([id]) => id);
}

/**
 * What the follower tells an onboarding: a block at `height` named it, or whether blocks are being read (`following`).
 */
interface ChainHint {
  height: number;
  following: boolean;
}

/** Where the follower is on the chain and whether it is healthy. */
export interface FollowerCursor {
  /** The last block whose transactions were read; null while asleep (it starts again at the head). */
  readThrough: number | null;
  /** The highest head seen: an answer at a lower height never moves it back. */
  head: number | null;
  /** Consecutive failed passes. */
  failures: number;
  /** What the waiting onboardings were last told. */
  following: boolean;
  /** When the last pass completed (ms since the epoch); 0 never. */
  lastGoodAt: number;
}

export const ASLEEP: FollowerCursor = { readThrough: null, head: null, failures: 0, following: false, lastGoodAt: 0 };

/** Hints to send: the same hint to each of `ids`. */
export interface Wake {
  ids: string[];
  hint: ChainHint;
}

/** The addresses onboardings wait on, each to the onboardings waiting on it (lower-case, trimmed). */
export class AddressIndex {
  private readonly byAddress = new Map<string, Set<string>>();
  private readonly byId = new Map<string, string[]>();

  /** Registers `id` waiting on `addresses`, replacing what it waited on before. */
  set(id: string, addresses: readonly string[]): void {
    this.delete(id);
    const normal = [...new Set(addresses.map(normalAddress).filter((a) => a !== ""))];
    this.byId.set(id, normal);
    for (const address of normal) {
      let ids = this.byAddress.get(address);
      if (!ids) this.byAddress.set(address, (ids = new Set()));
      ids.add(id);
    }
  }

  delete(id: string): void {
    for (const address of this.byId.get(id) ?? []) {
      const ids = this.byAddress.get(address);
      ids?.delete(id);
      if (ids?.size === 0) this.byAddress.delete(address);
    }
    this.byId.delete(id);
  }

  get size(): number {
    return this.byId.size;
  }

  ids(): string[] {
    return [...this.byId.keys()];
  }

  addressesOf(id: string): readonly string[] | undefined {
    return this.byId.get(id);
  }

  /** The onboardings that any of `strings` names. */
  named(strings: Iterable<string>): string[] {
    const found = new Set<string>();
    for (const value of strings) for (const id of this.byAddress.get(normalAddress(value)) ?? []) found.add(id);
    return [...found];
  }
}

const normalAddress = (value: string) => value.trim().toLowerCase();

/**
 * Every string value anywhere in `value` (message fields, nested ones, lists): no message name is needed to find an
 * address.
 */
export function* stringsIn(value: unknown): Generator<string> {
  if (typeof value === "string") yield value;
  else if (Array.isArray(value)) for (const item of value) yield* stringsIn(item);
  else if (value !== null && typeof value === "object") for (const item of Object.values(value)) yield* stringsIn(item);
}

/** The plan after learning the head: blocks to read in order, or a jump that wakes every waiting onboarding once. */
export interface HeadStep {
  cursor: FollowerCursor;
  read: number[];
  wake: Wake | null;
}

/**
 * The head is `height`. Starting (asleep), the follower begins START_BLOCKS_BACK before the head,
 * so the blocks since a new onboarding read its own state are read too. Up to MAX_CATCH_UP_BLOCKS
 * behind, the missed blocks are read in order; further behind, it jumps to the head and wakes
 * every waiting onboarding once, since it will never read what it skipped.
 */
export function learnHead(cursor: FollowerCursor, height: number, waiting: readonly string[]): HeadStep {
  const head = Math.max(cursor.head ?? height, height);
  const readThrough = cursor.readThrough ?? Math.max(head - START_BLOCKS_BACK, 0);
  const behind = head - readThrough;
  if (behind <= 0) return { cursor: { ...cursor, head, readThrough }, read: [], wake: null };
  if (behind > MAX_CATCH_UP_BLOCKS) {
    const wake = waiting.length > 0 ? { ids: [...waiting], hint: { height: head, following: true } } : null;
    return { cursor: { ...cursor, head, readThrough: head }, read: [], wake };
  }
  return {
    cursor: { ...cursor, head, readThrough },
    read: Array.from({ length: behind }, (_, i) => readThrough + 1 + i),
    wake: null,
  };
}

/** Block `height` was read and its messages' strings are `strings`: the onboardings it names are woken. */
export function readBlock(
  cursor: FollowerCursor,
  height: number,
  strings: Iterable<string>,
  index: AddressIndex,
): { cursor: FollowerCursor; wake: Wake | null } {
  const ids = index.named(strings);
  return {
    cursor: { ...cursor, readThrough: Math.max(cursor.readThrough ?? height, height) },
    wake: ids.length > 0 ? { ids, hint: { height, following: true } } : null,
  };
}

/**
 * A pass completed: the follower follows. After failing open, every waiting onboarding is told
 * once (and reads its state then); a follower that just started tells nobody: each onboarding
 * learns it from its next registration.
 */
export function passSucceeded(
  cursor: FollowerCursor,
  now: number,
  waiting: readonly string[],
): { cursor: FollowerCursor; wake: Wake | null } {
  const next = { ...cursor, failures: 0, following: true, lastGoodAt: now };
  const failedOpen = cursor.failures >= FAIL_OPEN_AFTER;
  const wake =
    failedOpen && waiting.length > 0
      ? { ids: [...waiting], hint: { height: next.readThrough ?? 0, following: true } }
      : null;
  return { cursor: next, wake };
}

/**
 * A pass failed (the nodes, or the follower itself): after FAIL_OPEN_AFTER in a row every waiting onboarding checks for
 * itself.
 */
export function passFailed(
  cursor: FollowerCursor,
  waiting: readonly string[],
): { cursor: FollowerCursor; wake: Wake | null } {
  const failures = cursor.failures + 1;
  const failing = failures >= FAIL_OPEN_AFTER;
  const next = { ...cursor, failures, following: cursor.following && !failing };
  const wake =
    cursor.following && failing && waiting.length > 0
      ? { ids: [...waiting], hint: { height: cursor.readThrough ?? 0, following: false } }
      : null;
  return { cursor: next, wake };
}

/** No onboarding waits: the follower sleeps, and starts again at the head when one does. */
export function fallAsleep(cursor: FollowerCursor): FollowerCursor {
  return { ...ASLEEP, head: cursor.head };
}

/** Whether an onboarding that registers now may rely on the follower (it read blocks lately and is not failing). */
export function isFollowing(cursor: FollowerCursor, now: number): boolean {
  return cursor.following && now - cursor.lastGoodAt < SILENT_MS;
}

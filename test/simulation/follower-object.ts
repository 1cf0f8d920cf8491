/**
 * The ChainFollower Durable Object (durable-objects/ChainFollower.ts) around the REAL follower
 * decisions (src/chain-follower/machine.ts): its registrations (`w:<id>`) and cursor are stored,
 * the pass under way is memory. Its alarm is its own clock: its steps never keep the world busy.
 */
import {
  AddressIndex,
  ASLEEP,
  type FollowerCursor,
  fallAsleep,
  isFollowing,
  learnHead,
  PASS_MS,
  passFailed,
  passSucceeded,
  readBlock,
  type Wake,
} from "../../src/chain-follower/machine";
import { type Co, joinSettled } from "./kernel";
import { SimObject } from "./objects";
import type { World } from "./world";

const CURSOR_KEY = "cursor";
const WATCH_PREFIX = "w:";
const HINTS_IN_FLIGHT = 50;

export class FollowerObject extends SimObject {
  index = new AddressIndex();
  cursor: FollowerCursor = ASLEEP;
  private running = false;
  passes = 0;

  constructor(private readonly world: World) {
    super(world, "follower", true);
  }

  protected load(): void {
    this.cursor = (this.storage.get(CURSOR_KEY) as FollowerCursor | undefined) ?? ASLEEP;
    this.index = new AddressIndex();
    for (const [key, value] of this.storage)
      if (key.startsWith(WATCH_PREFIX)) this.index.set(key.slice(WATCH_PREFIX.length), value as string[]);
    this.running = false;
  }

  protected drop(): void {
    this.index = new AddressIndex();
    this.cursor = ASLEEP;
    this.running = false;
  }

  /** The registrations as stored (what survives). */
  registered(): string[] {
    return [...this.storage.keys()].filter((k) => k.startsWith(WATCH_PREFIX)).map((k) => k.slice(WATCH_PREFIX.length));
  }

  watch(onboardingId: string, addresses: string[]): { following: boolean } {
    this.index.set(onboardingId, addresses);
    this.storage.set(`${WATCH_PREFIX}${onboardingId}`, this.index.addressesOf(onboardingId));
    if (this.alarm === null && !this.running) this.setAlarm(this.now);
    return { following: isFollowing(this.cursor, this.now) };
  }

  unwatch(onboardingId: string): void {
    if (this.index.addressesOf(onboardingId) === undefined) return;
    this.index.delete(onboardingId);
    this.storage.delete(`${WATCH_PREFIX}${onboardingId}`);
  }

  protected *onAlarm(): Co<void> {
    if (this.running) return;
    this.running = true;
    try {
      yield* this.pass();
    } finally {
      this.running = false;
    }
  }

  private *pass(): Co<void> {
    this.passes++;
    const started = this.now;
    if (this.index.size === 0) {
      this.save(fallAsleep(this.cursor));
      return;
    }
    try {
      const head = learnHead(this.cursor, yield* this.world.readHead(), this.index.ids());
      this.save(head.cursor);
      yield* this.hint(head.wake);
      for (const height of head.read) {
        const read = readBlock(this.cursor, height, yield* this.world.readBlockStrings(height), this.index);
        this.save(read.cursor);
        yield* this.hint(read.wake);
      }
      const done = passSucceeded(this.cursor, this.now, this.index.ids());
      this.save(done.cursor);
      yield* this.hint(done.wake);
    } catch {
      const failed = passFailed(this.cursor, this.index.ids());
      this.save(failed.cursor);
      yield* this.hint(failed.wake);
    }
    if (this.index.size > 0) this.setAlarm(Math.max(started + PASS_MS, this.now));
    else this.save(fallAsleep(this.cursor));
  }

  private save(cursor: FollowerCursor): void {
    if (cursor === this.cursor) return;
    this.cursor = cursor;
    this.storage.set(CURSOR_KEY, cursor);
  }

  private *hint(wake: Wake | null): Co<void> {
    if (!wake) return;
    for (let i = 0; i < wake.ids.length; i += HINTS_IN_FLIGHT) {
      const batch = wake.ids.slice(i, i + HINTS_IN_FLIGHT);
      yield* joinSettled(batch.map((id) => this.run(this.world.sendHint(id, wake.hint))));
    }
  }
}

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
  lapsed,
  learnHead,
  PASS_MS,
  passFailed,
  passSucceeded,
  readBlock,
  type Wake,
} from "../../src/chain-follower/machine";
import { FAN_OUT_WIDTH } from "../../src/fan-out";
import { type Co, joinSettled } from "./kernel";
import { SimObject } from "./objects";
import type { World } from "./world";

const CURSOR_KEY = "cursor";
const WATCH_PREFIX = "w:";

/** A registration as stored: the addresses, and when it was last renewed (ms). */
interface Registration {
  addresses: readonly string[];
  renewed_at: number;
}

export class FollowerObject extends SimObject {
  index = new AddressIndex();
  private renewed = new Map<string, number>();
  cursor: FollowerCursor = ASLEEP;
  private running = false;
  passes = 0;

  constructor(private readonly world: World) {
    super(world, "follower", true);
  }

  protected load(): void {
    this.cursor = (this.storage.get(CURSOR_KEY) as FollowerCursor | undefined) ?? ASLEEP;
    this.index = new AddressIndex();
    this.renewed = new Map();
    for (const [key, value] of this.storage) {
      if (!key.startsWith(WATCH_PREFIX)) continue;
      const entry = value as Registration;
      this.index.set(key.slice(WATCH_PREFIX.length), entry.addresses);
      this.renewed.set(key.slice(WATCH_PREFIX.length), entry.renewed_at);
    }
    this.running = false;
  }

  protected dropMemory(): void {
    this.index = new AddressIndex();
    this.renewed = new Map();
    this.cursor = ASLEEP;
    this.running = false;
  }

  /** The registrations as stored (what survives). */
  registered(): string[] {
    return [...this.storage.keys()].filter((k) => k.startsWith(WATCH_PREFIX)).map((k) => k.slice(WATCH_PREFIX.length));
  }

  watch(onboardingId: string, addresses: string[]): { following: boolean } {
    this.index.set(onboardingId, addresses);
    this.renew(onboardingId);
    if (this.alarm === null && !this.running) this.setAlarm(this.now);
    return { following: isFollowing(this.cursor, this.now) };
  }

  unwatch(onboardingId: string): void {
    this.drop([onboardingId]);
  }

  private renew(id: string): void {
    const addresses = this.index.addressesOf(id);
    if (addresses === undefined) return;
    this.renewed.set(id, this.now);
    this.storage.set(`${WATCH_PREFIX}${id}`, { addresses, renewed_at: this.now } satisfies Registration);
  }

  private drop(ids: readonly string[]): void {
    for (const id of ids) {
      if (this.index.addressesOf(id) === undefined) continue;
      this.index.delete(id);
      this.renewed.delete(id);
      this.storage.delete(`${WATCH_PREFIX}${id}`);
    }
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
    this.drop(lapsed(this.renewed, started));
    if (this.index.size === 0) {
      this.save(fallAsleep(this.cursor));
      return;
    }
    try {
      const head = learnHead(this.cursor, yield* this.world.readHead(), this.index.ids());
      this.save(head.cursor);
      yield* this.hint(head.wake);
      for (const height of head.read) {
        const strings = yield* this.world.readBlockStrings(height);
        // The node's transaction index does not show this block yet: stay before it, read it next pass.
        if (strings === null) break;
        const read = readBlock(this.cursor, height, strings, this.index);
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

  /**
   * Hints, 50 at a time: one that still waits renews its lease, one that no longer does is dropped, one not reached is
   * left to its own checks.
   */
  private *hint(wake: Wake | null): Co<void> {
    if (!wake) return;
    const results = [];
    for (let i = 0; i < wake.ids.length; i += FAN_OUT_WIDTH) {
      const batch = wake.ids.slice(i, i + FAN_OUT_WIDTH);
      results.push(...(yield* joinSettled(batch.map((id) => this.run(this.world.sendHint(id, wake.hint))))));
    }
    const ended: string[] = [];
    results.forEach((result, n) => {
      const id = wake.ids[n]!;
      if (!result.ok) return;
      if (result.value.waiting) this.renew(id);
      else ended.push(id);
    });
    this.drop(ended);
  }
}

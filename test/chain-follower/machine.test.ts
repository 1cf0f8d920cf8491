/**
 * The chain follower's decisions: blocks read in order up to the catch-up bound, a jump beyond it
 * that wakes every waiting onboarding once, wakes only for the onboardings a block's messages
 * name (any string, any message type), fail open after consecutive failed passes, and sleep.
 */
import { describe, expect, it } from "vitest";
import {
  AddressIndex,
  ASLEEP,
  fallAsleep,
  isFollowing,
  learnHead,
  passFailed,
  passSucceeded,
  readBlock,
  stringsIn,
  type FollowerCursor,
} from "../../src/chain-follower/machine";

// The figures docs/ARCHITECTURE.md states, written out rather than imported, so a changed one fails.
/** Starting (or waking), the follower begins 3 blocks before the head. */
const START_BLOCKS_BACK = 3;
/** More than 20 blocks behind, it jumps to the head. */
const MAX_CATCH_UP_BLOCKS = 20;
/** After 3 failed passes in a row it fails open. */
const FAIL_OPEN_AFTER = 3;
/** A follower that has not completed a pass for 30 s no longer claims to follow. */
const SILENT_MS = 30_000;

const following = (readThrough: number): FollowerCursor => ({
  readThrough,
  head: readThrough,
  failures: 0,
  following: true,
  lastGoodAt: 1_000,
});

describe("learning the head", () => {
  it(
    `starts ${START_BLOCKS_BACK} blocks before the head when asleep (the blocks since a new onboarding's own ` +
      `read), waking nobody`,
    () => {
      expect(learnHead(ASLEEP, 500, ["ob_a"])).toEqual({
        cursor: { ...ASLEEP, head: 500, readThrough: 500 - START_BLOCKS_BACK },
        read: [498, 499, 500],
        wake: null,
      });
    },
  );

  it("reads each missed block once, in order, up to the catch-up bound", () => {
    expect(learnHead(following(100), 103, ["ob_a"]).read).toEqual([101, 102, 103]);
    const bound = learnHead(following(100), 100 + MAX_CATCH_UP_BLOCKS, ["ob_a"]);
    expect(bound.read).toEqual(Array.from({ length: MAX_CATCH_UP_BLOCKS }, (_, i) => 101 + i));
    expect(bound.wake).toBeNull();
  });

  it("jumps to the head beyond the bound and wakes every waiting onboarding once", () => {
    const jump = learnHead(following(100), 101 + MAX_CATCH_UP_BLOCKS, ["ob_a", "ob_b"]);
    expect(jump.read).toEqual([]);
    expect(jump.cursor.readThrough).toBe(101 + MAX_CATCH_UP_BLOCKS);
    expect(jump.wake).toEqual({ ids: ["ob_a", "ob_b"], hint: { height: 101 + MAX_CATCH_UP_BLOCKS, following: true } });
  });

  it("never goes back to a lower height: a lagging node's head reads nothing and leaves the head where it was", () => {
    const lagging = learnHead({ ...following(100), head: 105 }, 98, ["ob_a"]);
    expect(lagging.read).toEqual([101, 102, 103, 104, 105]);
    expect(lagging.cursor.head).toBe(105);
    expect(learnHead(following(100), 97, ["ob_a"])).toMatchObject({
      read: [],
      wake: null,
      cursor: { head: 100, readThrough: 100 },
    });
  });
});

describe("reading a block", () => {
  it("wakes only the onboardings whose operator or payout a message names, in any field, case and nesting", () => {
    const index = new AddressIndex();
    index.set("ob_a", ["chain1operatora", "chain1payouta"]);
    index.set("ob_b", ["chain1operatorb"]);
    index.set("ob_c", ["chain1operatorc"]);
    const messages = [
      { "@type": "/chain.unknown.v1.MsgSomethingNew", inner: { list: ["x", " CHAIN1PAYOUTA "] } },
      {
        "@type": "/cosmos.bank.v1beta1.MsgSend",
        from_address: "chain1other",
        to_address: "chain1operatorb",
        amount: [{ denom: "u", amount: "1" }],
      },
    ];
    const read = readBlock(following(100), 101, stringsIn(messages), index);
    expect(read.cursor.readThrough).toBe(101);
    expect(read.wake?.ids.sort()).toEqual(["ob_a", "ob_b"]);
    expect(read.wake?.hint).toEqual({ height: 101, following: true });
    expect(readBlock(following(100), 101, stringsIn([{ a: "chain1nobody" }]), index).wake).toBeNull();
  });

  it("forgets an onboarding's old addresses when it registers new ones, and an unwatched one entirely", () => {
    const index = new AddressIndex();
    index.set("ob_a", ["chain1old"]);
    index.set("ob_a", ["chain1new"]);
    expect(index.named(["chain1old"])).toEqual([]);
    expect(index.named(["chain1new"])).toEqual(["ob_a"]);
    index.delete("ob_a");
    expect([index.named(["chain1new"]), index.size]).toEqual([[], 0]);
  });
});

describe("health: fail open", () => {
  it("tells every waiting onboarding to check for itself only after consecutive failed passes", () => {
    let cursor = following(100);
    for (let n = 1; n < FAIL_OPEN_AFTER; n++) {
      const failed = passFailed(cursor, ["ob_a"]);
      expect(failed.wake).toBeNull();
      cursor = failed.cursor;
    }
    const open = passFailed(cursor, ["ob_a", "ob_b"]);
    expect(open.wake).toEqual({ ids: ["ob_a", "ob_b"], hint: { height: 100, following: false } });
    expect(open.cursor.following).toBe(false);
    // Told once, not on every failed pass after.
    expect(passFailed(open.cursor, ["ob_a"]).wake).toBeNull();
  });

  it("tells them once when it follows again (each reads its state then), and not on every good pass", () => {
    const failing = { ...following(100), following: false, failures: 5 };
    const back = passSucceeded(failing, 9_000, ["ob_a"]);
    expect(back.wake).toEqual({ ids: ["ob_a"], hint: { height: 100, following: true } });
    expect(back.cursor).toMatchObject({ following: true, failures: 0, lastGoodAt: 9_000 });
    expect(passSucceeded(back.cursor, 10_000, ["ob_a"]).wake).toBeNull();
    // Failing once or twice never told them otherwise, and a follower that just started tells nobody.
    expect(passSucceeded({ ...following(100), failures: FAIL_OPEN_AFTER - 1 }, 9_000, ["ob_a"]).wake).toBeNull();
    expect(passSucceeded(learnHead(ASLEEP, 500, ["ob_a"]).cursor, 9_000, ["ob_a"]).wake).toBeNull();
  });

  it("does not claim to follow once it has been silent, and starts afresh at the head after sleeping", () => {
    expect(isFollowing(following(100), 1_000 + SILENT_MS - 1)).toBe(true);
    expect(isFollowing(following(100), 1_000 + SILENT_MS)).toBe(false);
    const slept = fallAsleep(following(100));
    expect(slept).toMatchObject({ readThrough: null, following: false });
    expect(learnHead(slept, 5_000, ["ob_a"]).read).toEqual([4_998, 4_999, 5_000]);
  });
});

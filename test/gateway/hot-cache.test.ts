/** The in-isolate layer in front of the Cache API: only fresh entries, bounded by count and size. */
import { describe, expect, it } from "vitest";
import type { CachedAnswer } from "../../src/gateway/cache-entry";
import { HOT_MAX_CHARS, HOT_MAX_ENTRIES, hotFresh, hotPut, hotSize } from "../../src/gateway/hot-cache";

const answer = (body: string, storedAt = Date.now(), ttl = 60): CachedAnswer => ({ status: 200, body, height: 1, storedAt, ttl, etag: '"x"' });

describe("hot cache", () => {
  it("serves an entry only while it is fresh", () => {
    const now = Date.now();
    hotPut("k-fresh", answer("{}", now, 5), "/route");
    expect(hotFresh("k-fresh", now + 4_999)?.body).toBe("{}");
    expect(hotFresh("k-fresh", now + 5_000)).toBeNull();
    expect(hotFresh("k-unknown", now)).toBeNull();
  });

  it("replaces an entry for the same key without counting it twice", () => {
    const before = hotSize();
    hotPut("k-same", answer("a".repeat(100)), "/route");
    hotPut("k-same", answer("b".repeat(50)), "/route");
    expect(hotFresh("k-same", Date.now())?.body).toBe("b".repeat(50));
    expect(hotSize().entries).toBe(before.entries + 1);
    expect(hotSize().chars).toBe(before.chars + 50);
  });

  it("keeps at most HOT_MAX_ENTRIES, dropping the oldest first", () => {
    for (let i = 0; i <= HOT_MAX_ENTRIES; i++) hotPut(`k-count-${i}`, answer("{}"), "/route");
    expect(hotSize().entries).toBe(HOT_MAX_ENTRIES);
    expect(hotFresh("k-count-0", Date.now())).toBeNull();
    expect(hotFresh(`k-count-${HOT_MAX_ENTRIES}`, Date.now())).not.toBeNull();
  });

  it("keeps at most HOT_MAX_CHARS of bodies and never keeps one oversized answer", () => {
    const big = "x".repeat(HOT_MAX_CHARS / 8);
    for (let i = 0; i < 10; i++) hotPut(`k-big-${i}`, answer(big), "/route");
    expect(hotSize().chars).toBeLessThanOrEqual(HOT_MAX_CHARS);
    expect(hotFresh("k-big-0", Date.now())).toBeNull();
    expect(hotFresh("k-big-9", Date.now())).not.toBeNull();
    hotPut("k-huge", answer(`${big}x`), "/route");
    expect(hotFresh("k-huge", Date.now())).toBeNull();
  });
});

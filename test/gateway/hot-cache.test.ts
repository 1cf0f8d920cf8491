/** The in-isolate layer in front of the Cache API: only fresh entries, bounded by count and size. */
import { describe, expect, it } from "vitest";
import type { CacheEntry } from "../../src/gateway/cache-entry";
import { hotFresh, hotPut } from "../../src/gateway/hot-cache";

// The figures as docs/GATEWAY.md states them: 1,000 entries, 8 MiB of bodies.
const HOT_MAX_ENTRIES = 1000;
const HOT_MAX_CHARS = 8 * 1024 * 1024;

const entry = (body: string, storedAt = Date.now(), ttl = 60): CacheEntry => ({
  status: 200,
  body,
  height: 1,
  storedAt,
  ttl,
  etag: '"x"',
});
/** The largest body the hot cache keeps: eight of them fill it. */
const big = "x".repeat(HOT_MAX_CHARS / 8);

describe("hot cache", () => {
  it("serves an entry only while it is fresh", () => {
    const now = Date.now();
    hotPut("k-fresh", entry("{}", now, 5));
    expect(hotFresh("k-fresh", now + 4_999)?.body).toBe("{}");
    expect(hotFresh("k-fresh", now + 5_000)).toBeNull();
    expect(hotFresh("k-unknown", now)).toBeNull();
  });

  it("replaces an entry for the same key without counting its size twice", () => {
    for (let i = 0; i < 10; i++) hotPut("k-same", entry(`${big.slice(1)}${i}`));
    expect(hotFresh("k-same", Date.now())?.body.endsWith("9")).toBe(true);
    // Seven more fill the cache exactly: nothing is evicted unless a replaced body still counts.
    for (let i = 0; i < 7; i++) hotPut(`k-fill-${i}`, entry(big));
    expect(hotFresh("k-same", Date.now())).not.toBeNull();
  });

  it("keeps at most HOT_MAX_ENTRIES, dropping the oldest first", () => {
    for (let i = 0; i <= HOT_MAX_ENTRIES; i++) hotPut(`k-count-${i}`, entry("{}"));
    expect(hotFresh("k-count-0", Date.now())).toBeNull();
    expect(hotFresh("k-count-1", Date.now())).not.toBeNull();
    expect(hotFresh(`k-count-${HOT_MAX_ENTRIES}`, Date.now())).not.toBeNull();
  });

  it("keeps at most HOT_MAX_CHARS of bodies and never keeps one oversized entry", () => {
    for (let i = 0; i < 10; i++) hotPut(`k-big-${i}`, entry(big));
    expect([0, 1].map((i) => hotFresh(`k-big-${i}`, Date.now()))).toEqual([null, null]);
    for (let i = 2; i < 10; i++) expect(hotFresh(`k-big-${i}`, Date.now())).not.toBeNull();
    hotPut("k-huge", entry(`${big}x`));
    expect(hotFresh("k-huge", Date.now())).toBeNull();
  });
});

/**
 * The served-height rule, bounded (docs/GATEWAY.md, "Heights"): a bogus height raises nothing, a
 * re-genesis or a bogus mark moves the mark down after 60 s, a lagging network is served after 60 s
 * with X-Edge-Behind, and never a lower height without it. Nodes are devnet mounts answering at set
 * heights (`fixed_height`, devnet/faults.ts), far from the devnet's own, so no test races its block clock.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { DEVNET, fault, freshAddress, gateway, json, tag, type Gateway } from "./helpers";

afterEach(() => vi.useRealTimers());

const balances = () => `/cosmos/bank/v1beta1/balances/${freshAddress()}`;
const ownOrigin = () => ({ origin: `https://${tag()}.edge.test` });
const heightOf = (r: Response) => Number(r.headers.get("x-cosmos-block-height"));
/** A height far above the devnet's, set by the test. */
const H = 50_000_000;

/** A gateway of nodes `tags`, whose first latest read is served at exactly `H` (the mark). */
async function markedAt(tags: string[], vars: Record<string, string> = {}): Promise<Gateway> {
  const gw = gateway(tags, { UPSTREAM_COOLDOWN_MS: "0", ...vars }, ownOrigin());
  const path = balances();
  await fault({ prefix: path, fixed_height: H });
  expect(heightOf(await gw.fetch(`/api${path}`))).toBe(H);
  return gw;
}

async function read(gw: Gateway, height: number | null, tagOnly?: string): Promise<Response> {
  const path = balances();
  if (height !== null) await fault({ ...(tagOnly ? { tag: tagOnly } : {}), prefix: path, fixed_height: height });
  return gw.fetch(`/api${path}`);
}

describe("a bogus height", () => {
  it("more than 1,000 blocks past the mark and every other node is not served: the next node is asked", async () => {
    const [a, b] = [tag(), tag()];
    const gw = await markedAt([a, b]);
    const path = balances();
    await fault({ tag: a, prefix: path, fixed_height: H + 1001 });
    await fault({ tag: b, prefix: path, fixed_height: H + 3 });
    expect(heightOf(await gw.fetch(`/api${path}`))).toBe(H + 3);
    // 1,000 blocks past the mark (now H + 3) is believed.
    expect(heightOf(await read(gw, H + 1003, a))).toBe(H + 1003);
  });

  it("is one more than 1,000 blocks past the other node's last report; within 1,000 of it is believed", async () => {
    const [a, b] = [tag(), tag()];
    const gw = await markedAt([a, b]);
    /** A read only `node` answers, at `height` (the other fails). */
    const only = async (node: string, height: number) => {
      const path = balances();
      await fault({ tag: node, prefix: path, fixed_height: height });
      await fault({ tag: node === a ? b : a, prefix: path, status: 500 });
      return gw.fetch(`/api${path}`);
    };
    // a's H + 6000 is past the ceiling (H + 1,000) and b's last report: not believed.
    expect((await only(a, H + 6000)).status).toBe(502);
    // b's H + 7001 is 1,001 past a's last report: not believed.
    expect((await only(b, H + 7001)).status).toBe(502);
    // b's H + 6999 is 999 past it: believed.
    expect(heightOf(await only(b, H + 6999))).toBe(H + 6999);
  });

  it("raises the mark once a second node reaches it", async () => {
    const [a, b] = [tag(), tag()];
    const gw = await markedAt([a, b]);
    const path = balances();
    await fault({ prefix: path, fixed_height: H + 5000 });
    const response = await gw.fetch(`/api${path}`);
    expect(heightOf(response)).toBe(H + 5000);
    expect(response.headers.get("x-edge-attempts")).toBe("2");
  });

  it("in a kept answer is dropped, and latest reads are served again within 60 s of a a 15-digit mark", async () => {
    const [a, b] = [tag(), tag()];
    vi.useFakeTimers({ toFake: ["Date"] });
    const t0 = Date.now();
    const gw = gateway([a, b], { UPSTREAM_COOLDOWN_MS: "0" }, ownOrigin());
    // A fresh isolate has no mark to judge by: the first answer, a 15-digit, is served and kept.
    const bogusKey = balances();
    await fault({ tag: a, prefix: bogusKey, fixed_height: 999_999_999_999_999, times: 1 });
    expect(heightOf(await gw.fetch(`/api${bogusKey}`))).toBe(999_999_999_999_999);
    await gw.settle();
    // Every node answers at H from now on: below the mark, so not served for 60 s.
    for (const t of [a, b]) await fault({ tag: t, fixed_height: H });
    expect((await read(gw, null)).status).toBe(502);
    vi.setSystemTime(t0 + 59_999);
    expect((await read(gw, null)).status).toBe(502);
    vi.setSystemTime(t0 + 60_000);
    const again = await read(gw, null);
    expect(again.status).toBe(200);
    expect(heightOf(again)).toBe(H);
    // A re-genesis: the mark itself moved down, so no header says "behind".
    expect(again.headers.get("x-edge-behind")).toBeNull();
    // The kept a 15-digit answer is dropped and replaced, not served.
    vi.setSystemTime(t0 + 62_000);
    const kept = await gw.fetch(`/api${bogusKey}`);
    expect(heightOf(kept)).toBe(H);
  });
});

describe("lag bounded, not fatal", () => {
  it("serves nothing one block below the mark before 60 s, then the best node with X-Edge-Behind", async () => {
    const [a, b] = [tag(), tag()];
    vi.useFakeTimers({ toFake: ["Date"] });
    const t0 = Date.now();
    const gw = await markedAt([a, b]);
    for (const t of [a, b]) await fault({ tag: t, fixed_height: H - 1 });
    const early = await read(gw, null);
    expect(early.status).toBe(502);
    expect(early.headers.get("x-cosmos-block-height")).toBeNull();
    vi.setSystemTime(t0 + 59_999);
    expect((await read(gw, null)).status).toBe(502);
    vi.setSystemTime(t0 + 60_000);
    const late = await read(gw, null);
    expect(late.status).toBe(200);
    expect(heightOf(late)).toBe(H - 1);
    expect(late.headers.get("x-edge-behind")).toBe("1");
  });

  it("serves latest reads with X-Edge-Behind when the first node is down and the second 50 behind", async () => {
    const [a, b] = [tag(), tag()];
    vi.useFakeTimers({ toFake: ["Date"] });
    const t0 = Date.now();
    const gw = await markedAt([a, b]);
    await fault({ tag: a, drop: true });
    await fault({ tag: b, fixed_height: H - 50 });
    expect((await read(gw, null)).status).toBe(502);
    vi.setSystemTime(t0 + 61_000);
    for (let i = 0; i < 3; i++) {
      const response = await read(gw, null);
      expect(response.status).toBe(200);
      expect(heightOf(response)).toBe(H - 50);
      expect(response.headers.get("x-edge-behind")).toBe("50");
    }
    // A hit from memory says it too.
    const path = balances();
    await gw.fetch(`/api${path}`);
    const hit = await gw.fetch(`/api${path}`);
    expect(hit.headers.get("x-cache")).toBe("HIT");
    expect(hit.headers.get("x-edge-behind")).toBe("50");
  });

  it("does so on the RPC face too", async () => {
    const a = tag();
    vi.useFakeTimers({ toFake: ["Date"] });
    const t0 = Date.now();
    const gw = await markedAt([tag()], { RPC_UPSTREAM_URLS: `${DEVNET}/~${a}/rpc` });
    await fault({ tag: a, prefix: "/rpc/", fixed_height: H - 50 });
    const status = () => gw.fetch("/rpc/status");
    const early = await json<{ error?: { code: number } }>(await status());
    expect(early.error).toMatchObject({ code: -32603 });
    vi.setSystemTime(t0 + 61_000);
    const late = await status();
    const reply = await json<{ result: { sync_info: { latest_block_height: string } } }>(late);
    expect(Number(reply.result.sync_info.latest_block_height)).toBe(H - 50);
    expect(late.headers.get("x-edge-behind")).toBe("50");
  });
});

/**
 * Node choice tried from outside: the Worker under `wrangler dev` (its default configuration, the
 * shield tier on) in front of devnet mounts that answer slowly or with a 429, over real HTTP. A
 * 400 ms node listed first gets at most 10% of 20 misses beside a 20 ms node, every miss names its
 * node, and `GET /api/gateway` shows the slow node's p50 and the 429 node benched with its reason.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { freshAddress, serverContext } from "./helpers/chain.ts";
import { startWranglerDev, type WranglerDev } from "./helpers/wrangler-dev.ts";

const apiKey = randomBytes(24).toString("hex");
const tag = () => `e2e${randomBytes(4).toString("hex")}`;
const [slow, fast, limited] = [tag(), tag(), tag()];
const devnet = inject("devnetUrl");
let server: WranglerDev;

async function fault(spec: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${devnet}/__devnet/faults`, { method: "POST", body: JSON.stringify(spec) });
  expect(response.status).toBe(201);
}

const count = async (t: string) =>
  ((await (await fetch(`${devnet}/__devnet/requests?prefix=~${t}/`)).json()) as { count: number }).count;

beforeAll(async () => {
  await fault({ tag: slow, delay_ms: 400 });
  await fault({ tag: fast, delay_ms: 20 });
  await fault({ tag: limited, status: 429, headers: { "retry-after": "10" } });
  server = await startWranglerDev({
    UPSTREAM_URLS: [slow, fast].map((t) => `${devnet}/~${t}`).join(","),
    RPC_UPSTREAM_URLS: `${devnet}/~${limited}/rpc,${devnet}/~${fast}/rpc`,
    RATE_LIMITS: "off",
    HOST_API_KEYS: apiKey,
  });
});
afterAll(async () => {
  await server?.stop();
});

describe("nodes chosen by what they measure, from outside", () => {
  it("sends the 400 ms node at most 10% of 20 misses, names the node of each, and shows it all", async () => {
    const ctx = await serverContext();
    for (let i = 0; i < 20; i++) {
      const response = await fetch(`${server.url}/api/cosmos/bank/v1beta1/balances/${freshAddress(ctx)}`);
      expect(response.status).toBe(200);
      expect(response.headers.get("x-cache")).toMatch(/^MISS/);
      expect(response.headers.get("x-edge-upstream")).toBe(new URL(devnet).origin);
      expect(Number(response.headers.get("x-edge-attempts"))).toBeGreaterThanOrEqual(1);
    }
    expect(await count(slow)).toBeLessThanOrEqual(20 * 0.1);
    expect(await count(fast)).toBeGreaterThanOrEqual(18);

    const rpc = await fetch(`${server.url}/rpc/abci_info`);
    expect(rpc.status).toBe(200);
    expect(rpc.headers.get("x-edge-attempts")).toBe("2");
    expect(await count(limited)).toBe(1);

    const view = (await (
      await fetch(`${server.url}/api/gateway`, { headers: { authorization: `Bearer ${apiKey}` } })
    ).json()) as {
      faces: Record<"rest" | "rpc", { latency_ms: { p50: number | null }; state: string; reason: string | null }[]>;
    };
    expect(view.faces.rest[0]!.latency_ms.p50).toBeGreaterThanOrEqual(300);
    expect(view.faces.rpc[0]).toMatchObject({ state: "benched", reason: "429, Retry-After 10 s" });
    // Benched: the next RPC miss does not ask it.
    await fetch(`${server.url}/rpc/abci_query?path="/cosmos.bank.v1beta1.Query/TotalSupply"`);
    expect(await count(limited)).toBe(1);
  });
});

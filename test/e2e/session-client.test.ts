/**
 * The page's session client against the real server (`wrangler dev`), in Node: one pending
 * session shared by concurrent connects until it settles, the WebSocket push, the polling
 * fallback (a socket that cannot connect, or that closes without an error), cancel, expiry (by
 * push and by a poll's 410), the server's cap on a session's life, and the errors a page shows.
 */
import { describe, expect, inject, it, vi } from "vitest";
import { createSessionClient, PairingError } from "../../page/session-client.ts";
import { serverContext } from "./helpers/chain.ts";
import { connectedAddress, runWallet } from "./helpers/wallet.ts";

const base = inject("baseUrl");
const ttlSeconds = inject("sessionTtlSeconds");
const ctx = await serverContext();

/** A WebSocket that counts its instances, so a test can tell push from polling. */
function countingSocket() {
  const opened: string[] = [];
  class Counting extends WebSocket {
    constructor(url: string | URL) {
      super(url);
      opened.push(String(url));
    }
  }
  return { Socket: Counting as typeof WebSocket, opened };
}

/** Counts the session reads (polls) a client makes. */
function countingFetch() {
  const reads: string[] = [];
  const wrapped: typeof fetch = (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    if ((init?.method ?? "GET") === "GET" && /\/sessions\/cs_/.test(url)) reads.push(url);
    return fetch(input, init);
  };
  return { fetch: wrapped, reads };
}

describe("page session client", () => {
  it("shares one pending session between concurrent connects, then starts a new one once settled", async () => {
    const { Socket, opened } = countingSocket();
    const counted = countingFetch();
    const client = createSessionClient(ctx, {
      origin: base,
      originName: "e2e",
      WebSocket: Socket,
      fetch: counted.fetch,
    });
    const [a, b] = await Promise.all([client.start(), client.start()]);
    expect(a).toBe(b);
    const both = Promise.all([client.connect(), client.connect()]);
    expect(await client.start()).toBe(a);

    const address = connectedAddress(await runWallet(a.sessionId));
    const [first, second] = await both;
    expect(first).toEqual({
      address,
      pubkeyBase64: expect.any(String),
      accountLabel: "Simulator",
      sessionId: a.sessionId,
    });
    expect(second).toEqual(first);
    expect(Buffer.from(first.pubkeyBase64, "base64").length).toBe(1952);
    // Pushed, not polled: one socket for the session and no session reads.
    expect(opened).toEqual([`${base.replace("http", "ws")}/api/${ctx.walletPath}/sessions/${a.sessionId}`]);
    expect(counted.reads).toEqual([]);

    const next = await client.start();
    expect(next.sessionId).not.toBe(a.sessionId);
    await next.cancel();
    await expect(next.result).rejects.toMatchObject({ kind: "cancelled" });
  });

  it("falls back to polling when the WebSocket cannot connect", async () => {
    class Failing extends EventTarget {
      constructor() {
        super();
        queueMicrotask(() => this.dispatchEvent(new Event("error")));
      }
      close() {}
    }
    const counted = countingFetch();
    const client = createSessionClient(ctx, {
      origin: base,
      originName: "e2e",
      WebSocket: Failing as unknown as typeof WebSocket,
      fetch: counted.fetch,
      pollIntervalMs: 200,
    });
    const pending = await client.start();
    // Confirm only once polling has begun, so the result must come from a poll.
    await expect.poll(() => counted.reads.length).toBeGreaterThan(0);
    const address = connectedAddress(await runWallet(pending.sessionId));
    expect((await pending.result).address).toBe(address);
  });

  it("falls back to polling when the WebSocket closes without an error event", async () => {
    // A real socket to the real server, closed cleanly once open: a "close" with no "error" before it.
    let errors = 0;
    class Dropped extends WebSocket {
      constructor(url: string | URL) {
        super(url);
        this.addEventListener("error", () => errors++);
        this.addEventListener("open", () => this.close(1000, "dropped"), { once: true });
      }
    }
    const counted = countingFetch();
    const client = createSessionClient(ctx, {
      origin: base,
      originName: "e2e",
      WebSocket: Dropped,
      fetch: counted.fetch,
      pollIntervalMs: 200,
    });
    const pending = await client.start();
    await expect.poll(() => counted.reads.length).toBeGreaterThan(0);
    const address = connectedAddress(await runWallet(pending.sessionId));
    expect((await pending.result).address).toBe(address);
    expect(errors).toBe(0);
  });

  it("polls only when push is disabled", async () => {
    const counted = countingFetch();
    const client = createSessionClient(ctx, {
      origin: base,
      originName: "e2e",
      WebSocket: null,
      fetch: counted.fetch,
      pollIntervalMs: 200,
    });
    const pending = await client.start();
    await runWallet("--refuse", pending.sessionId);
    const error = await pending.result.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PairingError);
    expect((error as PairingError).kind).toBe("cancelled");
    expect(counted.reads.length).toBeGreaterThan(0);
  });

  it("polls every 1.5 s by default, as the SDK does", async () => {
    const counted = countingFetch();
    const timers = vi.spyOn(globalThis, "setTimeout");
    try {
      const client = createSessionClient(ctx, {
        origin: base,
        originName: "e2e",
        WebSocket: null,
        fetch: counted.fetch,
      });
      const pending = await client.start();
      // After its first read the client schedules the next one: the delay it asks for is the figure.
      await vi.waitFor(() => expect(counted.reads.length).toBeGreaterThan(0));
      await vi.waitFor(() => expect(timers.mock.calls.map(([, ms]) => ms)).toContain(1500));
      await runWallet("--refuse", pending.sessionId);
      expect(await pending.result.catch((e: unknown) => (e as PairingError).kind)).toBe("cancelled");
    } finally {
      timers.mockRestore();
    }
  });

  it("learns that the session expired from the push", async () => {
    const { Socket, opened } = countingSocket();
    const client = createSessionClient(ctx, { origin: base, originName: "e2e", WebSocket: Socket, expiresInMs: 2_000 });
    const pending = await client.start();
    await expect(pending.result).rejects.toMatchObject({ kind: "expired" });
    expect(opened).toHaveLength(1);
  });

  it("learns that the session expired from the 410 a poll gets", async () => {
    const counted = countingFetch();
    const client = createSessionClient(ctx, {
      origin: base,
      originName: "e2e",
      WebSocket: null,
      fetch: counted.fetch,
      pollIntervalMs: 200,
      expiresInMs: 2_000,
    });
    const pending = await client.start();
    await expect(pending.result).rejects.toMatchObject({ kind: "expired" });
    expect(counted.reads.length).toBeGreaterThan(0);
  });

  it("lets the server choose the life, and promises the wallet exactly the expiry it stored", async () => {
    const posts: Record<string, unknown>[] = [];
    const client = createSessionClient(ctx, {
      origin: base,
      originName: "e2e",
      WebSocket: null,
      fetch: (input, init) => {
        if (init?.method === "POST") posts.push(JSON.parse(String(init.body)) as Record<string, unknown>);
        return fetch(input, init);
      },
    });
    const before = Date.now();
    const pending = await client.start();
    expect(posts).toHaveLength(1);
    expect(posts[0]).not.toHaveProperty("expires_at");
    const stored = (await (await fetch(`${base}/api/${ctx.walletPath}/sessions/${pending.sessionId}`)).json()) as {
      expires_at: string;
    };
    expect(pending.payload.expires_at).toBe(stored.expires_at);
    expect(pending.expiresAt.toISOString()).toBe(stored.expires_at);
    // The e2e server's cap (25 s) is below the SDK's five minutes: the server kept its cap.
    expect(pending.expiresAt.getTime()).toBeGreaterThan(before);
    expect(pending.expiresAt.getTime()).toBeLessThanOrEqual(Date.now() + ttlSeconds * 1000);
    await pending.cancel();
    await expect(pending.result).rejects.toMatchObject({ kind: "cancelled" });
  });

  it("reports an unreachable server as a network failure, and lets the next start retry", async () => {
    const client = createSessionClient(ctx, { origin: "http://127.0.0.1:9", originName: "e2e" });
    await expect(client.start()).rejects.toMatchObject({ kind: "network" });
    await expect(client.start()).rejects.toMatchObject({ kind: "network" });
  });

  it("reports a refused create (wrong chain id) as a server failure", async () => {
    const client = createSessionClient({ ...ctx, chainId: "other-chain-9" }, { origin: base, originName: "e2e" });
    const error = await client.start().catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "server" });
    expect((error as Error).message).toMatch(/chain_id/);
  });
});

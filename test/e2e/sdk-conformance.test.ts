/**
 * Conformance with the network's wallet SDK, against `wrangler dev` on the local profile (the
 * network's words): a client that behaves as the SDK does (test/e2e/helpers/sdk-client.ts), the
 * wallet simulator relaying the proof, and the server's answers the SDK depends on.
 */
import { describe, expect, inject, it } from "vitest";
import { mintSessionId } from "../../src/protocol/index.ts";
import { createSdk, SDK_WORDS, sdkHttpTransport, type SdkSession } from "./helpers/sdk-client.ts";
import { connectedAddress, runWallet } from "./helpers/wallet.ts";

const base = inject("baseUrl");
const ttlSeconds = inject("sessionTtlSeconds");
const origin = { name: "SDK conformance", url: base };
/** The SDK's `createHttpTransport({ baseUrl: origin + "/api/hope-wallet" })`. */
const sdkBase = `${base}/api/${SDK_WORDS.walletPath}`;
/** Poll faster than the SDK's 1500 ms so the suite stays short; the protocol is the same. */
const INTERVAL_MS = 200;

interface Exchange {
  method: string;
  url: string;
  status: number;
  sentAt: number;
  headers: Headers;
  body?: string;
}

/** A fetch that records every exchange, for assertions on what the client sent and got. */
function recordingFetch() {
  const exchanges: Exchange[] = [];
  const wrapped: typeof fetch = async (input, init) => {
    const sentAt = Date.now();
    const response = await fetch(input, init);
    exchanges.push({
      method: init?.method ?? "GET",
      url: String(input),
      status: response.status,
      sentAt,
      headers: new Headers(init?.headers),
      body: init?.body as string | undefined,
    });
    return response;
  };
  return { fetch: wrapped, exchanges };
}

/** Resolves with the session once `onSession` reports it. */
function sessionReported() {
  let report!: (session: SdkSession) => void;
  const reported = new Promise<SdkSession>((resolve) => (report = resolve));
  return { reported, onSession: (session: SdkSession) => report(session) };
}

describe("the server speaks the SDK's words in the local profile", () => {
  it("publishes the wallet path, chain id, prefix and scheme the SDK hard-codes", async () => {
    const settings = (await (await fetch(`${base}/api/config`)).json()) as Record<string, string>;
    expect(settings).toMatchObject({
      wallet_path: SDK_WORDS.walletPath,
      chain_id: SDK_WORDS.defaultChainId,
      bech32_prefix: SDK_WORDS.prefix,
      wallet_scheme: SDK_WORDS.scheme,
    });
  });
});

describe("SDK connect() against the server", () => {
  it("resolves once the wallet posts its proof to the payload's relay_url", async () => {
    const recorded = recordingFetch();
    const sdk = createSdk({ intervalMs: INTERVAL_MS });
    const { reported, onSession } = sessionReported();
    const proof = sdk.connect({
      origin,
      transport: sdkHttpTransport(sdkBase, recorded.fetch),
      relayUrl: true,
      expiresInMs: 20_000,
      onSession,
    });
    const session = await reported;
    expect(session.payload.relay_url).toBe(
      `${base}/api/${SDK_WORDS.walletPath}/sessions/${session.payload.session_id}/confirm`,
    );

    const address = connectedAddress(await runWallet(session.deepLink));
    expect(await proof).toEqual({
      sessionId: session.payload.session_id,
      address,
      pubkeyBase64: expect.any(String),
      accountLabel: "Simulator",
    });

    const create = recorded.exchanges[0]!;
    expect(create).toMatchObject({ method: "POST", url: `${sdkBase}/sessions`, status: 201 });
    expect(create.headers.get("content-type")).toBe("application/json");
    expect(create.headers.get("accept")).toBe("application/json");
    expect(Object.keys(JSON.parse(create.body!)).sort()).toEqual([
      "chain_id",
      "expires_at",
      "origin",
      "relay_url",
      "session_id",
      "v",
    ]);
  });

  it("resolves with the proof sent in camelCase, uppercase and base64url from the bare base64 payload", async () => {
    const sdk = createSdk({ intervalMs: INTERVAL_MS });
    const { reported, onSession } = sessionReported();
    const proof = sdk.connect({
      origin,
      transport: sdkHttpTransport(sdkBase),
      relayUrl: true,
      expiresInMs: 20_000,
      onSession,
    });
    const session = await reported;
    const payload = decodeURIComponent(new URL(session.deepLink).searchParams.get("p")!);
    const address = connectedAddress(
      await runWallet("--camel", "--uppercase", "--base64url", "--seed", "variants", payload),
    );
    const result = await proof;
    expect(result.address).toBe(address);
    expect(Buffer.from(result.pubkeyBase64!, "base64").length).toBe(1952);
    expect(result.pubkeyBase64).toMatch(/^[A-Za-z0-9+/]+=*$/);
  });

  it("shares one session between two concurrent connects", async () => {
    const recorded = recordingFetch();
    const sdk = createSdk({ intervalMs: INTERVAL_MS });
    const transport = sdkHttpTransport(sdkBase, recorded.fetch);
    const first = sessionReported();
    const both = Promise.all([
      sdk.connect({ origin, transport, relayUrl: true, expiresInMs: 20_000, onSession: first.onSession }),
      sdk.connect({ origin, transport, relayUrl: true, expiresInMs: 20_000 }),
    ]);
    const session = await first.reported;
    await runWallet(session.deepLink);
    const [a, b] = await both;
    expect(a).toEqual(b);
    expect(recorded.exchanges.filter((e) => e.method === "POST")).toHaveLength(1);
  });

  it("rejects once the page cancels (DELETE without headers)", async () => {
    const recorded = recordingFetch();
    const sdk = createSdk({ intervalMs: INTERVAL_MS });
    const transport = sdkHttpTransport(sdkBase, recorded.fetch);
    const { reported, onSession } = sessionReported();
    const proof = sdk.connect({ origin, transport, relayUrl: true, expiresInMs: 20_000, onSession });
    const session = await reported;
    await transport.cancel(session.payload.session_id);
    await expect(proof).rejects.toThrow("Wallet verification was cancelled");
    const cancel = recorded.exchanges.find((e) => e.method === "DELETE")!;
    expect([...cancel.headers.keys()]).toEqual([]);
    expect(cancel.status).toBe(200);
  });

  it("ends the wait on the first poll after the session expired (410), not at the SDK's own timeout", async () => {
    const recorded = recordingFetch();
    const sdk = createSdk({ intervalMs: INTERVAL_MS });
    const { reported, onSession } = sessionReported();
    const proof = sdk.connect({
      origin,
      transport: sdkHttpTransport(sdkBase, recorded.fetch),
      relayUrl: true,
      expiresInMs: 2_000,
      onSession,
    });
    const expiresAt = Date.parse((await reported).payload.expires_at);
    await expect(proof).rejects.toThrow("Verification session lookup failed (410)");

    const polls = recorded.exchanges.filter((e) => e.method === "GET");
    expect(polls.at(-1)!.status).toBe(410);
    expect(polls.slice(0, -1).every((e) => e.status === 200)).toBe(true);
    // Every poll answered "pending" was sent before the expiry; at most one poll was sent after it.
    expect(polls.filter((e) => e.status === 200).every((e) => e.sentAt < expiresAt)).toBe(true);
    expect(polls.filter((e) => e.sentAt >= expiresAt).length).toBeLessThanOrEqual(1);
  });

  it("is refused a create beyond the server's cap, with the cap in the message", async () => {
    const sdk = createSdk({ intervalMs: INTERVAL_MS });
    await expect(
      sdk.connect({
        origin,
        transport: sdkHttpTransport(sdkBase),
        relayUrl: true,
        expiresInMs: (ttlSeconds + 60) * 1000,
      }),
    ).rejects.toThrow("Could not create verification session (400)");
    const sessionId = mintSessionId();
    const response = await fetch(`${sdkBase}/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({
        v: 1,
        session_id: sessionId,
        chain_id: SDK_WORDS.defaultChainId,
        origin,
        expires_at: new Date(Date.now() + (ttlSeconds + 60) * 1000).toISOString(),
        relay_url: `${sdkBase}/sessions/${sessionId}/confirm`,
      }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toBe(
      `expires_at may be at most ${ttlSeconds} seconds from now`,
    );
    expect((await fetch(`${sdkBase}/sessions/${sessionId}`)).status).toBe(404);
  });

  it("is refused a create whose expires_at has already passed", async () => {
    const sdk = createSdk({ intervalMs: INTERVAL_MS });
    await expect(
      sdk.connect({ origin, transport: sdkHttpTransport(sdkBase), relayUrl: true, expiresInMs: -1000 }),
    ).rejects.toThrow("Could not create verification session (400)");
  });
});

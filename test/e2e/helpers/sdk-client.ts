/**
 * A client that behaves as the network's wallet SDK (`@hopenetwork/wallet` 0.3.x) does, written
 * from docs/WALLET-PROTOCOL.md (the project cannot ship the SDK's code): `connect()` with an HTTP
 * transport, `relayUrl: true`, a shared flight for concurrent calls, polling every 1500 ms, and
 * DELETE on cancel. Only the polling interval and the wait's length are test-configurable here,
 * so a suite need not wait 300 s.
 */
import { randomUUID } from "node:crypto";
import { isAccountAddress } from "../../../src/protocol/index.ts";

/**
 * What the SDK hard-codes (docs/WALLET-PROTOCOL.md): a server it can use speaks these
 * words. They are the SDK's constants, not this project's configuration.
 */
export const SDK_WORDS = {
  walletPath: "hope-wallet",
  defaultChainId: "hope-testnet-2",
  prefix: "hope",
  scheme: "hopewallet",
} as const;

const SDK_POLL_INTERVAL_MS = 1500;
const SDK_WAIT_MS = 5 * 60 * 1000;

interface SdkPayload {
  v: 1;
  session_id: string;
  chain_id: string;
  origin: { name: string; url: string };
  expires_at: string;
  relay_url?: string;
}

interface SdkRow {
  session_id: string;
  status: string;
  address: string | null;
  pubkey_base64: string | null;
  account_label: string | null;
  connected_at: string | null;
}

export interface SdkProof {
  sessionId: string;
  address: string;
  pubkeyBase64?: string;
  accountLabel?: string;
}

export interface SdkTransport {
  create(payload: SdkPayload): Promise<void>;
  get(sessionId: string): Promise<SdkRow | null>;
  cancel(sessionId: string): Promise<void>;
}

/**
 * The SDK's `createHttpTransport`: any 2xx creates; GET 404 is "not yet", another non-2xx throws; DELETE's answer is
 * ignored.
 */
export function sdkHttpTransport(baseUrl: string, fetchFn: typeof fetch = fetch): SdkTransport {
  const base = baseUrl.replace(/\/$/, "");
  return {
    async create(payload) {
      const response = await fetchFn(`${base}/sessions`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify(payload),
      });
      if (!response.ok) throw new Error(`Could not create verification session (${response.status})`);
    },
    async get(sessionId) {
      const response = await fetchFn(`${base}/sessions/${encodeURIComponent(sessionId)}`, {
        headers: { accept: "application/json" },
      });
      if (response.status === 404) return null;
      if (!response.ok) throw new Error(`Verification session lookup failed (${response.status})`);
      return (await response.json()) as SdkRow;
    },
    async cancel(sessionId) {
      await fetchFn(`${base}/sessions/${encodeURIComponent(sessionId)}`, { method: "DELETE" });
    },
  };
}

/** What `onSession` receives once the session exists: the payload and its deep link. */
export interface SdkSession {
  payload: SdkPayload;
  deepLink: string;
}

export interface SdkConnectParams {
  origin: { name: string; url: string };
  chainId?: string;
  transport: SdkTransport;
  relayUrl?: true | string;
  expiresInMs?: number;
  onSession?: (session: SdkSession) => void;
}

/** An SDK instance: `connect()` and its in-flight sessions, with the wait's timing for tests. */
export function createSdk(timing: { intervalMs?: number; waitMs?: number } = {}) {
  const intervalMs = timing.intervalMs ?? SDK_POLL_INTERVAL_MS;
  const waitMs = timing.waitMs ?? SDK_WAIT_MS;
  const flights = new Map<string, { session: Promise<SdkSession>; proof: Promise<SdkProof> }>();

  function hasPrefixAddress(value: string): boolean {
    const address = value.trim();
    if (address !== address.toLowerCase() && address !== address.toUpperCase()) return false;
    return isAccountAddress(address.toLowerCase(), SDK_WORDS.prefix);
  }

  async function begin(params: SdkConnectParams): Promise<SdkSession> {
    const origin = { name: params.origin.name.trim(), url: new URL(params.origin.url).origin };
    const payload: SdkPayload = {
      v: 1,
      session_id: `cs_${randomUUID().replaceAll("-", "")}`,
      chain_id: params.chainId?.trim() || SDK_WORDS.defaultChainId,
      origin,
      expires_at: new Date(Date.now() + (params.expiresInMs ?? SDK_WAIT_MS)).toISOString(),
    };
    if (params.relayUrl) {
      payload.relay_url =
        params.relayUrl === true
          ? `${origin.url}/api/${SDK_WORDS.walletPath}/sessions/${encodeURIComponent(payload.session_id)}/confirm`
          : params.relayUrl;
    }
    await params.transport.create(payload);
    const p = encodeURIComponent(Buffer.from(JSON.stringify(payload), "utf8").toString("base64"));
    return { payload, deepLink: `${SDK_WORDS.scheme}://connect?p=${p}` };
  }

  async function waitForProof(sessionId: string, transport: SdkTransport): Promise<SdkProof> {
    const started = Date.now();
    while (Date.now() - started < waitMs) {
      const row = await transport.get(sessionId);
      if (row?.status === "cancelled") throw new Error("Wallet verification was cancelled");
      if (row?.status === "connected" && row.address && hasPrefixAddress(row.address)) {
        return {
          sessionId: row.session_id,
          address: row.address.trim(),
          pubkeyBase64: row.pubkey_base64 ?? undefined,
          accountLabel: row.account_label ?? undefined,
        };
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
    throw new Error("Timed out waiting for the wallet");
  }

  /** The SDK's `connect()`: concurrent calls with the same origin, chain and relay share one session. */
  async function connect(params: SdkConnectParams): Promise<SdkProof> {
    const relay = params.relayUrl === true ? "true" : (params.relayUrl ?? "");
    const key = `${params.origin.url}|${params.chainId?.trim() || ""}|${relay}`;
    let flight = flights.get(key);
    if (!flight) {
      const session = begin(params);
      const proof = session.then((s) => waitForProof(s.payload.session_id, params.transport));
      const started = { session, proof };
      flights.set(key, started);
      void proof
        .catch(() => undefined)
        .finally(() => {
          if (flights.get(key) === started) flights.delete(key);
        });
      flight = started;
    }
    const session = await flight.session;
    params.onSession?.(session);
    return flight.proof;
  }

  return { connect };
}

/**
 * The page's pairing client: speaks wallet-protocol.md to this origin's session endpoints, as the
 * wallet SDK's `connect()` does, but waits on the session's WebSocket push instead of polling
 * (polling every 1.5 s remains the fallback when the socket fails). Concurrent connects share one
 * pending session until it settles.
 *
 * DOM-free apart from `fetch` and `WebSocket`, both injectable for tests.
 */
import type { ChainContext } from "../src/protocol/index.ts";
import { buildConnectPayload, type ConnectPayload } from "../src/protocol/index.ts";
import { connectDeepLink } from "../src/protocol/index.ts";
import { mintSessionId } from "../src/protocol/index.ts";

/** Why pairing stopped without a wallet identity. */
export type PairingFailure = "cancelled" | "expired" | "network" | "server";

/** Pairing failed; `kind` says why, the message says it to a person. */
export class PairingError extends Error {
  override name = "PairingError";
  readonly kind: PairingFailure;
  constructor(kind: PairingFailure, message: string) {
    super(message);
    this.kind = kind;
  }
}

/** What a connected session proves: the wallet's address and public key. */
export interface WalletIdentity {
  address: string;
  pubkeyBase64: string;
  accountLabel: string | null;
  sessionId: string;
}

/** A session waiting for the wallet: what to show (payload, link) and how it ends. */
export interface PendingConnection {
  sessionId: string;
  payload: ConnectPayload;
  /** `<scheme>://connect?p=…`: the QR's content and the "Open wallet" link's href. */
  link: string;
  expiresAt: Date;
  /** Resolves on `connected`; rejects with a PairingError on cancelled, expired or a failure. */
  result: Promise<WalletIdentity>;
  /** Cancels the session (DELETE); `result` then rejects with kind "cancelled". */
  cancel(): Promise<void>;
}

/** Options of `createSessionClient`. */
export interface SessionClientOptions {
  /** The page's origin, e.g. `location.origin`; sessions and relay URL live there. */
  origin: string;
  /** Shown by the wallet as who asks. */
  originName: string;
  fetch?: typeof fetch;
  /** WebSocket constructor; `null` disables the push channel (polling only). */
  WebSocket?: typeof WebSocket | null;
  /** Polling period of the fallback; 1500 ms like the SDK. */
  pollIntervalMs?: number;
}

/** A session row as the server sends it (the fields this client reads). */
interface SessionRow {
  session_id: string;
  status: "pending" | "connected" | "cancelled" | "expired";
  expires_at: string;
  address: string | null;
  pubkey_base64: string | null;
  account_label: string | null;
}

/** The pairing client of one page. */
export interface SessionClient {
  /** The pending session, created on first call and shared by every call until it settles. */
  start(): Promise<PendingConnection>;
  /** `start()` then its result: the SDK's `connect()`. */
  connect(): Promise<WalletIdentity>;
}

/** Makes the page's pairing client for one chain context. */
export function createSessionClient(ctx: ChainContext, options: SessionClientOptions): SessionClient {
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const Socket = options.WebSocket === undefined ? globalThis.WebSocket : options.WebSocket;
  const pollMs = options.pollIntervalMs ?? 1500;
  const base = `${options.origin}/api/${ctx.walletPath}/sessions`;
  let current: Promise<PendingConnection> | null = null;

  async function create(): Promise<PendingConnection> {
    const sessionId = mintSessionId();
    const payload = buildConnectPayload(ctx, { sessionId, origin: { name: options.originName, url: options.origin } });
    const response = await request(`${base}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(payload) });
    if (response.status !== 201) throw await failure(response);
    const row = (await response.json()) as SessionRow;
    let cancelledHere = false;
    const result = waitForSettle(row).finally(() => {
      // Settled: the next start() makes a new session.
      current = null;
    });
    // A caller that cancels and never awaits the result must not see an unhandled rejection.
    result.catch(() => undefined);
    return {
      sessionId,
      payload,
      link: connectDeepLink(ctx.walletScheme, payload),
      expiresAt: new Date(row.expires_at),
      result,
      async cancel() {
        if (cancelledHere) return;
        cancelledHere = true;
        const answer = await request(`${base}/${sessionId}`, { method: "DELETE" });
        if (!answer.ok && answer.status !== 409) throw await failure(answer);
      },
    };
  }

  async function request(url: string, init?: RequestInit): Promise<Response> {
    try {
      return await doFetch(url, { ...init, credentials: "same-origin", cache: "no-store" });
    } catch {
      throw new PairingError("network", "The server could not be reached. Check your connection and try again.");
    }
  }

  /** Resolves or rejects once the row settles, from pushes or, failing those, from polls. */
  function waitForSettle(first: SessionRow): Promise<WalletIdentity> {
    return new Promise<WalletIdentity>((resolve, reject) => {
      let done = false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      let socket: WebSocket | undefined;
      const settle = (row: SessionRow): boolean => {
        if (done || row.status === "pending") return done;
        done = true;
        if (timer !== undefined) clearTimeout(timer);
        try {
          socket?.close();
        } catch {
          // Already closing.
        }
        if (row.status === "connected" && row.address && row.pubkey_base64) {
          resolve({ address: row.address, pubkeyBase64: row.pubkey_base64, accountLabel: row.account_label, sessionId: row.session_id });
        } else if (row.status === "expired") {
          reject(new PairingError("expired", "The connection request expired before the wallet answered."));
        } else {
          reject(new PairingError("cancelled", "The connection was cancelled or declined in the wallet."));
        }
        return true;
      };
      const fail = (error: unknown) => {
        if (done) return;
        done = true;
        reject(error instanceof PairingError ? error : new PairingError("server", "The server answered with an error."));
      };
      const poll = async () => {
        if (done) return;
        try {
          const response = await request(`${base}/${first.session_id}`);
          // 404 is "not yet" for the SDK; anything else that is not 2xx ends the wait.
          if (response.ok) {
            if (settle((await response.json()) as SessionRow)) return;
          } else if (response.status !== 404) {
            const body = await response.json().catch(() => null);
            const reason = (body as { details?: { reason?: string }[] } | null)?.details?.[0]?.reason;
            if (reason === "SESSION_EXPIRED") return void settle({ ...first, status: "expired" });
            if (reason === "SESSION_CANCELLED") return void settle({ ...first, status: "cancelled" });
            throw new PairingError("server", "The server answered with an error while waiting for the wallet.");
          }
        } catch (error) {
          return fail(error);
        }
        if (!done) timer = setTimeout(poll, pollMs);
      };
      if (settle(first)) return;
      if (!Socket) return void poll();
      const wsUrl = `${base.replace(/^http/, "ws")}/${first.session_id}`;
      let fellBack = false;
      const fallBack = () => {
        if (fellBack || done) return;
        fellBack = true;
        void poll();
      };
      try {
        socket = new Socket(wsUrl);
      } catch {
        return fallBack();
      }
      socket.addEventListener("message", (event) => {
        try {
          settle(JSON.parse(String(event.data)) as SessionRow);
        } catch {
          // A message that is not a row: keep waiting.
        }
      });
      // The server closes once the row settles, after sending it; any other close means polling.
      socket.addEventListener("close", fallBack);
      socket.addEventListener("error", fallBack);
    });
  }

  return {
    start() {
      current ??= create().catch((error: unknown) => {
        current = null;
        throw error;
      });
      return current;
    },
    async connect() {
      return (await this.start()).result;
    },
  };
}

async function failure(response: Response): Promise<PairingError> {
  const body = (await response.json().catch(() => null)) as { message?: string; details?: { reason?: string }[] } | null;
  if (response.status === 429) return new PairingError("server", "Too many connection attempts from this network; wait a minute and try again.");
  return new PairingError("server", `The server refused the connection request${body?.message ? ` (${body.message})` : ""}.`);
}

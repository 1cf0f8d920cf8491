/**
 * The page's pairing client: speaks docs/WALLET-PROTOCOL.md to this origin's session endpoints, as the
 * wallet SDK's `connect()` does, but waits on the session's WebSocket push instead of polling
 * (polling every 1.5 s remains the fallback when the socket fails). Concurrent connects share one
 * pending session until it settles. Unlike the SDK it knows `expired`: from the push, or from the
 * 410 a poll of an expired session gets. Its first session can be the one the page's document
 * carried (`first`), which the server stores on its first use: no create is sent for it.
 *
 * DOM-free apart from `fetch` and `WebSocket`, both injectable for tests.
 */
import type { ChainContext } from "../src/protocol/index.ts";
import { buildConnectPayload, type ConnectPayload } from "../src/protocol/index.ts";
import { connectDeepLink } from "../src/protocol/index.ts";
import { mintSessionId, onboardingQuery } from "../src/protocol/index.ts";
import { sessionRowSchema, type SessionRow } from "../src/protocol/session-row.ts";

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
interface WalletIdentity {
  address: string;
  pubkeyBase64: string;
  accountLabel: string | null;
  sessionId: string;
}

/** A session waiting for the wallet: what to show (payload, link) and how it ends. */
interface PendingConnection {
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

/**
 * The session the page's document carried (src/page/first-session.ts): an id the server signed and
 * stores on its first use (this client's push channel or poll, or the wallet's confirm), and the
 * connect link the document's QR already shows.
 */
export interface FirstSession {
  session_id: string;
  expires_at: string;
  link: string;
  /** The host's onboarding the id is signed for: every request for it names the onboarding. */
  onboarding?: string;
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
  /**
   * The life asked for each session. Unset, the create names no expiry and the server keeps its
   * default (the SDK's five minutes, or its cap where that is lower); the link then carries the
   * expiry the server stored, so the wallet is promised exactly what the server keeps.
   */
  expiresInMs?: number;
  /** The document's session, which the first `start()` takes instead of creating one. */
  first?: FirstSession | null;
  /** Where each later session comes from, when the server signs them (a host's onboarding); null: create one. */
  signed?: () => Promise<FirstSession | null>;
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
  let first = options.first ?? null;

  /** Sends a create; answers the stored row. */
  async function sendCreate(): Promise<SessionRow> {
    const sessionId = mintSessionId();
    const origin = { name: options.originName, url: options.origin };
    const asked = options.expiresInMs === undefined ? undefined : new Date(Date.now() + options.expiresInMs);
    const { expires_at, ...rest } = buildConnectPayload(ctx, { sessionId, origin, expiresAt: asked });
    const body = asked === undefined ? rest : { ...rest, expires_at };
    const response = await request(base, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (response.status !== 201) throw await failure(response);
    const row = rowFrom(await response.json().catch(() => null));
    if (!row || row.session_id !== sessionId)
      throw new PairingError(
        "server",
        "The server answered the connection request with something that is not a session.",
      );
    return row;
  }

  /** The document's session as its first use stores it (src/sessions/signed-ids.ts): nothing to send. */
  function documentSession(carried: FirstSession): SessionRow {
    return {
      session_id: carried.session_id,
      status: "pending",
      chain_id: ctx.chainId,
      origin: { name: options.originName, url: new URL(options.origin).origin },
      created_at: new Date().toISOString(),
      expires_at: carried.expires_at,
      address: null,
      pubkey_base64: null,
      account_label: null,
      connected_at: null,
    };
  }

  async function create(): Promise<PendingConnection> {
    const carried = first ?? (await options.signed?.()) ?? null;
    first = null;
    const row = carried ? documentSession(carried) : await sendCreate();
    const sessionId = row.session_id;
    // A session signed for a host's onboarding is found only by naming it (src/sessions/signed-ids.ts).
    const onboarding = carried?.onboarding ?? null;
    const path = `${base}/${sessionId}${onboardingQuery(onboarding)}`;
    // The link promises the wallet exactly the origin and expiry the server stores.
    const expiresAt = new Date(row.expires_at);
    const payload = buildConnectPayload(ctx, { sessionId, origin: row.origin, expiresAt, onboarding });
    let cancelledHere = false;
    const result = waitForSettle(row, path).finally(() => {
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
        const answer = await request(path, { method: "DELETE" });
        // Already connected (409) or expired (410): the result says which.
        if (!answer.ok && answer.status !== 409 && answer.status !== 410) throw await failure(answer);
      },
    };
  }

  function request(url: string, init?: RequestInit): Promise<Response> {
    return reached(() => doFetch(url, { ...init, credentials: "same-origin", cache: "no-store" }));
  }

  /** Resolves or rejects once the row settles, from pushes or, failing those, from polls. */
  function waitForSettle(first: SessionRow, path: string): Promise<WalletIdentity> {
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
          resolve({
            address: row.address,
            pubkeyBase64: row.pubkey_base64,
            accountLabel: row.account_label,
            sessionId: row.session_id,
          });
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
        reject(
          error instanceof PairingError ? error : new PairingError("server", "The server answered with an error."),
        );
      };
      const poll = async () => {
        if (done) return;
        try {
          const response = await request(path);
          // 404 is "not yet" for the SDK; 410 SESSION_EXPIRED is the end; any other non-2xx ends the wait.
          if (response.ok) {
            const row = rowFrom(await response.json().catch(() => null));
            if (!row) throw new PairingError("server", "The server answered with something that is not a session.");
            if (settle(row)) return;
          } else if (response.status !== 404) {
            if ((await reasonOf(response)).reason === "SESSION_EXPIRED")
              return void settle({ ...first, status: "expired" });
            throw new PairingError("server", "The server answered with an error while waiting for the wallet.");
          }
        } catch (error) {
          return fail(error);
        }
        if (!done) timer = setTimeout(poll, pollMs);
      };
      if (settle(first)) return;
      if (!Socket) return void poll();
      const wsUrl = path.replace(/^http/, "ws");
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
        let data: unknown = null;
        try {
          data = JSON.parse(String(event.data));
        } catch {
          // A message that is not JSON (a "pong"): keep waiting.
        }
        const row = rowFrom(data);
        if (row) settle(row);
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

/** The answer of a request; a request that never got one is a PairingError of kind "network". */
async function reached(send: () => Promise<Response>): Promise<Response> {
  try {
    return await send();
  } catch {
    throw new PairingError("network", "The server could not be reached. Check your connection and try again.");
  }
}

/** A session row, or null for anything else. */
function rowFrom(value: unknown): SessionRow | null {
  const parsed = sessionRowSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** The error body's message, reason and metadata, as far as they are there. */
async function reasonOf(
  response: Response,
): Promise<{ message?: string; reason?: string; metadata?: Record<string, string> }> {
  const body = (await response
    .clone()
    .json()
    .catch(() => null)) as {
    message?: string;
    details?: { reason?: string; metadata?: Record<string, string> }[];
  } | null;
  return { message: body?.message, reason: body?.details?.[0]?.reason, metadata: body?.details?.[0]?.metadata };
}

async function failure(response: Response): Promise<PairingError> {
  if (response.status === 429)
    return new PairingError("server", "Too many connection attempts from this network; wait a minute and try again.");
  const { message } = await reasonOf(response);
  return new PairingError("server", `The server refused the connection request${message ? ` (${message})` : ""}.`);
}

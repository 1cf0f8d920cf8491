/** Builders for the pairing tests: real addresses, real-sized keys, wire-contract payloads. */
import { toBech32 } from "@cosmjs/encoding";
import { env, exports } from "cloudflare:workers";
import { readConfig } from "../../src/config";
import { mintSessionId } from "../../src/protocol/index";

export { mintSessionId };

const config = readConfig(env);

/** The origin every test request is made on; https, so the HTTPS rules pass. */
export const ORIGIN = "https://edge.test";
/** The session endpoints and the words of the configuration under test. */
export const WALLET = `/api/${config.walletPath}/sessions`;
export const CHAIN_ID = config.chainId;
export const PREFIX = config.bech32Prefix;
export const RETENTION_MS = config.sessionRetentionSeconds * 1000;
export const TTL_MAX_SECONDS = config.sessionTtlMaxSeconds;

export function randomBytes(length: number): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(length));
}

/** A valid account address with the configured prefix. */
export function accountAddress(prefix = PREFIX): string {
  return toBech32(prefix, randomBytes(20));
}

/** Canonical base64 of an ML-DSA-65-sized public key (the network's key type). */
export function publicKey(bytes = 1952): string {
  let binary = "";
  for (const byte of randomBytes(bytes)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

export function createPayload(sessionId = mintSessionId(), overrides: Record<string, unknown> = {}) {
  return {
    v: 1,
    session_id: sessionId,
    chain_id: CHAIN_ID,
    origin: { name: "Edge test", url: ORIGIN },
    expires_at: new Date(Date.now() + 5 * 60_000).toISOString(),
    relay_url: `${ORIGIN}${WALLET}/${sessionId}/confirm`,
    ...overrides,
  };
}

export function proofFor(sessionId: string, overrides: Record<string, unknown> = {}) {
  return {
    session_id: sessionId,
    address: accountAddress(),
    pubkey_base64: publicKey(),
    account_label: "Main",
    ...overrides,
  };
}

/** A request to the Worker; each call comes from its own client IP unless one is given. */
export function api(path: string, init: RequestInit & { ip?: string } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (!headers.has("cf-connecting-ip"))
    headers.set("cf-connecting-ip", init.ip ?? `198.51.100.${Math.floor(Math.random() * 250)}-${crypto.randomUUID()}`);
  const url = path.startsWith("http") ? path : `${ORIGIN}${path}`;
  return exports.default.fetch(new Request(url, { ...init, headers }));
}

export function postJson(path: string, body: unknown, init: RequestInit & { ip?: string } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("content-type", headers.get("content-type") ?? "application/json");
  return api(path, { method: "POST", ...init, headers, body: typeof body === "string" ? body : JSON.stringify(body) });
}

/** Creates a pending session and returns its id. */
export async function createSession(overrides: Record<string, unknown> = {}): Promise<string> {
  const sessionId = mintSessionId();
  const response = await postJson(WALLET, createPayload(sessionId, overrides));
  if (response.status !== 201) throw new Error(`create failed: ${response.status} ${await response.text()}`);
  return sessionId;
}

export function confirm(sessionId: string, proof: unknown): Promise<Response> {
  return postJson(`${WALLET}/${sessionId}/confirm`, proof);
}

/** The one error shape: returns the reason after checking the shape. */
export async function errorReason(response: Response): Promise<string> {
  const body = (await response.json()) as { code: number; message: string; details: { reason: string }[] };
  if (typeof body.code !== "number" || typeof body.message !== "string" || body.message === "") {
    throw new Error(`not the error shape: ${JSON.stringify(body)}`);
  }
  return body.details[0]!.reason;
}

/**
 * Session ids the Worker signs, so that a page load costs no storage: the page's document carries
 * a session that is stored only when it is first used (the wallet's confirm, or the page's read
 * or WebSocket), from what the id itself says.
 *
 * A signed id is an ordinary `cs_` id, 32 lowercase hex characters, laid out as
 *
 *   expiry (8 hex: Unix seconds) · nonce (12 hex: 48 random bits) · tag (12 hex)
 *
 * where the tag is the first 48 bits of HMAC-SHA256 over the expiry, the nonce, the origin, the
 * chain id and, for the session of a host's onboarding page, the onboarding's id, keyed with a key
 * derived from `SESSION_SIGNING_KEY`. So the wallet's confirm is enough to store the row; a changed
 * expiry, another origin, another chain id or another onboarding fails the tag; and ids of clients
 * that mint their own (the SDK's random ones) are simply not signed. The nonce and the tag together
 * are 96 bits that no one can guess without the key.
 *
 * The 32 characters have no room for an onboarding id, so a bound session's requests name it
 * beside the id (`?onboarding=ob_…`, in the relay URL the wallet posts its confirm to, and in the
 * page's own reads); the tag decides whether that pairing is the one the server signed, so a
 * request naming another onboarding finds no session at all.
 */
import { fromHex, toHex } from "../protocol/hex";
import type { NewSession } from "./machine";

const HEX = /^cs_([0-9a-f]{8})([0-9a-f]{12})([0-9a-f]{12})$/;
const keys = new Map<string, Promise<CryptoKey>>();

/** The HMAC key for session ids, derived once per isolate from the configured secret. */
function hmacKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    const utf8 = new TextEncoder();
    key = crypto.subtle.importKey("raw", utf8.encode(secret), "HKDF", false, ["deriveKey"]).then((base) =>
      crypto.subtle.deriveKey(
        {
          name: "HKDF",
          hash: "SHA-256",
          salt: new Uint8Array(0),
          info: utf8.encode("chain-edge signed session id v1"),
        },
        base,
        { name: "HMAC", hash: "SHA-256", length: 256 },
        false,
        ["sign"],
      ),
    );
    keys.set(secret, key);
  }
  return key;
}

async function tag(expiry: string, nonce: string, scope: SignedScope): Promise<Uint8Array> {
  const bound = scope.onboarding ? `\n${scope.onboarding}` : "";
  const signed = new TextEncoder().encode(`${expiry}${nonce}\n${scope.origin}\n${scope.chainId}${bound}`);
  return new Uint8Array(await crypto.subtle.sign("HMAC", await hmacKey(scope.secret), signed)).slice(0, 6);
}

/** What a signed id is bound to. */
export interface SignedScope {
  /** The signing secret (`config.sessionSigningKey`). */
  secret: string;
  /** The page's origin, where the wallet relays its confirm. */
  origin: string;
  chainId: string;
  /** The host's onboarding whose page carries the session (the wallet's confirm pairs it); none on a self-hoster's. */
  onboarding?: string | null;
}

/** A fresh signed session id that expires at `expiresAt` (ms, taken down to the second), and that expiry. */
export async function mintSignedSessionId(
  scope: SignedScope,
  expiresAt: number,
): Promise<{ sessionId: string; expiresAt: number }> {
  const seconds = Math.floor(expiresAt / 1000);
  const expiry = seconds.toString(16).padStart(8, "0");
  const nonce = toHex(crypto.getRandomValues(new Uint8Array(6)));
  const mac = toHex(await tag(expiry, nonce, scope));
  return { sessionId: `cs_${expiry}${nonce}${mac}`, expiresAt: seconds * 1000 };
}

/**
 * The expiry (ms) a session id was signed with for this scope, or null when it was not signed
 * for it (a random id, a changed character, another origin, chain id or onboarding, or another key).
 */
async function signedExpiry(scope: SignedScope, sessionId: string): Promise<number | null> {
  const parts = HEX.exec(sessionId);
  if (!parts) return null;
  const [, expiry, nonce, mac] = parts as unknown as [string, string, string, string];
  const expected = await tag(expiry, nonce, scope);
  const given = fromHex(mac);
  if (!crypto.subtle.timingSafeEqual(expected, given)) return null;
  return parseInt(expiry, 16) * 1000;
}

/**
 * The row a signed id stands for, as its first use stores it: "expired" once its expiry has
 * passed, null when the id is not signed for this scope or promises more than `maxSeconds` of
 * life from `now` (only a leaked key could sign that).
 */
export async function signedSession(
  scope: SignedScope,
  sessionId: string,
  origin: { name: string },
  now: number,
  maxSeconds: number,
): Promise<NewSession | "expired" | null> {
  const expiresAt = await signedExpiry(scope, sessionId);
  if (expiresAt === null || expiresAt > now + maxSeconds * 1000) return null;
  if (expiresAt <= now) return "expired";
  return {
    session_id: sessionId,
    chain_id: scope.chainId,
    origin: { name: origin.name, url: scope.origin },
    expires_at: new Date(expiresAt).toISOString(),
    ...(scope.onboarding ? { onboarding_id: scope.onboarding } : {}),
  };
}

/**
 * The wallet's proof of a connect (docs/WALLET-PROTOCOL.md, "The confirm"): the body a wallet posts to a
 * session's relay URL, read as the network's SDK reads it (either spelling of a field, a
 * non-string or empty value counting as absent, extra fields ignored, an all-uppercase address)
 * and normalized for storage, with this server's stricter rules on top (a required
 * public key, a 20-byte address payload, the path's session id, a bounded label).
 *
 * Pure: the Worker maps a problem to its one error shape, the wallet simulator checks what it
 * sends with the same rules.
 */
import { accountAddressProblem, BECH32_MAX_LENGTH } from "./address.ts";
import { CONTROL_CHARS } from "./text.ts";

/** A normalized proof: address in lowercase, key in standard padded base64, an empty label as null. */
export interface WalletProof {
  session_id: string;
  address: string;
  pubkey_base64: string;
  account_label: string | null;
}

/** Why a proof was refused: the field, a reason a client can branch on, and a sentence. */
interface ProofProblem {
  field: string;
  reason: "INVALID_PROOF" | "SESSION_ID_MISMATCH" | "INVALID_ADDRESS" | "INVALID_PUBKEY";
  message: string;
}

export type ProofResult = { ok: true; proof: WalletProof } | { ok: false; problem: ProofProblem };

/** Longest account label, in characters (code points). */
export const ACCOUNT_LABEL_MAX = 64;
/**
 * Bounds of a decoded public key. Wide on purpose: every standard signature scheme's key lies
 * inside them (Ed25519 and SLH-DSA-128 32 bytes, the network's ML-DSA-65 1952, ML-DSA-87 2592).
 */
export const PUBKEY_MIN_BYTES = 32;
export const PUBKEY_MAX_BYTES = 4096;

const STANDARD_BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const URL_SAFE_BASE64 = /^[A-Za-z0-9_-]*={0,2}$/;

/**
 * Reads a confirm body for the session `expected.sessionId` on a network whose addresses start
 * with `expected.bech32Prefix`: the normalized proof, or the first problem found.
 */
export function normalizeWalletProof(
  body: unknown,
  expected: { sessionId: string; bech32Prefix: string },
): ProofResult {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return refuse("body", "INVALID_PROOF", "The proof must be a JSON object");
  }
  const fields = body as Record<string, unknown>;

  const sessionId = either(fields, "session_id", "sessionId");
  if (typeof sessionId === "object") return { ok: false, problem: sessionId };
  if (sessionId === undefined) return refuse("session_id", "INVALID_PROOF", "session_id is required");
  if (sessionId !== expected.sessionId) {
    return refuse("session_id", "SESSION_ID_MISMATCH", "session_id in the body differs from the session in the path");
  }

  const address = normalizeAddress(text(fields, "address"), expected.bech32Prefix);
  if (typeof address === "object") return { ok: false, problem: address };

  const key = either(fields, "pubkey_base64", "pubkeyBase64");
  if (typeof key === "object") return { ok: false, problem: key };
  if (key === undefined) return refuse("pubkey_base64", "INVALID_PUBKEY", "pubkey_base64 is required");
  const pubkey = canonicalPublicKey(key);
  if (typeof pubkey === "object") return { ok: false, problem: pubkey };

  const label = either(fields, "account_label", "accountLabel");
  if (typeof label === "object") return { ok: false, problem: label };
  if (label !== undefined && [...label].length > ACCOUNT_LABEL_MAX) {
    return refuse("account_label", "INVALID_PROOF", `account_label must be at most ${ACCOUNT_LABEL_MAX} characters`);
  }
  if (label !== undefined && CONTROL_CHARS.test(label)) {
    return refuse("account_label", "INVALID_PROOF", "account_label must not contain control characters");
  }

  return { ok: true, proof: { session_id: sessionId, address, pubkey_base64: pubkey, account_label: label ?? null } };
}

/** The proof's fields as a session row holds them. */
type ProvenFields = { address: string | null; pubkey_base64: string | null; account_label: string | null };

/** True when two normalized proofs (or a row and a proof) name the same wallet account: a repeated confirm. */
export function sameProof(a: ProvenFields, b: ProvenFields): boolean {
  return a.address === b.address && a.pubkey_base64 === b.pubkey_base64 && a.account_label === b.account_label;
}

/** An own string field that is not empty; anything else counts as absent, as the SDK reads it. */
function text(fields: Record<string, unknown>, name: string): string | undefined {
  const value = Object.hasOwn(fields, name) ? fields[name] : undefined;
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** A field sent in snake_case or camelCase; both are fine when they agree. */
function either(fields: Record<string, unknown>, snake: string, camel: string): string | undefined | ProofProblem {
  const a = text(fields, snake);
  const b = text(fields, camel);
  if (a !== undefined && b !== undefined && a !== b) {
    return problem(
      snake,
      "INVALID_PROOF",
      `${snake} and ${camel} are both present and differ; send one spelling, or the same value in both`,
    );
  }
  return a ?? b;
}

function normalizeAddress(raw: string | undefined, prefix: string): string | ProofProblem {
  if (raw === undefined) return problem("address", "INVALID_ADDRESS", "address is required");
  const address = raw.trim();
  if (address.length > BECH32_MAX_LENGTH)
    return problem("address", "INVALID_ADDRESS", `address is longer than ${BECH32_MAX_LENGTH} characters`);
  const lower = address.toLowerCase();
  // Bech32 allows all-lowercase or all-uppercase, never a mix (BIP-173).
  if (address !== lower && address !== address.toUpperCase()) {
    return problem("address", "INVALID_ADDRESS", "address mixes upper- and lowercase letters; bech32 allows one case");
  }
  const why = accountAddressProblem(lower, prefix);
  return why === null ? lower : problem("address", "INVALID_ADDRESS", `address ${why}`);
}

/** The key in standard padded base64, from base64 or base64url with or without padding. */
function canonicalPublicKey(value: string): string | ProofProblem {
  const field = "pubkey_base64";
  if (!STANDARD_BASE64.test(value) && !URL_SAFE_BASE64.test(value)) {
    return problem(field, "INVALID_PUBKEY", "pubkey_base64 must be base64 or base64url (one alphabet, nothing else)");
  }
  const unpadded = value.replace(/=+$/, "");
  if ((unpadded !== value && value.length % 4 !== 0) || unpadded.length % 4 === 1) {
    return problem(field, "INVALID_PUBKEY", "pubkey_base64 has a length or padding no base64 encoder produces");
  }
  const standard = unpadded.replaceAll("-", "+").replaceAll("_", "/");
  const padded = standard + "=".repeat((4 - (standard.length % 4)) % 4);
  const binary = atob(padded);
  // An encoder leaves the unused bits of the last symbol zero; other strings are not canonical.
  if (btoa(binary) !== padded)
    return problem(
      field,
      "INVALID_PUBKEY",
      "pubkey_base64 is not canonical base64 (the last symbol's unused bits are set)",
    );
  if (binary.length < PUBKEY_MIN_BYTES || binary.length > PUBKEY_MAX_BYTES) {
    return problem(
      field,
      "INVALID_PUBKEY",
      `pubkey_base64 decodes to ${binary.length} bytes; a public key is ${PUBKEY_MIN_BYTES} to ${PUBKEY_MAX_BYTES} ` +
        `bytes`,
    );
  }
  return padded;
}

function problem(field: string, reason: ProofProblem["reason"], message: string): ProofProblem {
  return { field, reason, message };
}

function refuse(field: string, reason: ProofProblem["reason"], message: string): ProofResult {
  return { ok: false, problem: problem(field, reason, message) };
}

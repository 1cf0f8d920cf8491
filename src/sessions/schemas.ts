/**
 * Validation of the pairing wire contract (wallet-protocol.md): session ids, the create payload
 * and the wallet proof, the latter with `parseWalletProof`'s rules made strict.
 */
import * as z from "zod/mini";
import { accountAddressProblem } from "../protocol/index";
import { invalidArgument } from "../errors";
import { parseOrRefuse } from "../http/validate";
import { SESSION_ID_PATTERN } from "../protocol/index";
import type { WalletProof } from "../protocol/index";


/** Body limits: a create payload is small; a proof carries a public key of up to 1952 bytes. */
export const CREATE_BODY_LIMIT = 4096;
export const CONFIRM_BODY_LIMIT = 8192;

const NO_CONTROL_CHARS = /^[^\u0000-\u001f\u007f]*$/;

export const sessionIdSchema = z
  .string()
  .check(z.regex(SESSION_ID_PATTERN, "must be cs_ followed by 32 lowercase hex characters"));

const label = (max: number) =>
  z.string().check(z.minLength(1), z.maxLength(max), z.regex(NO_CONTROL_CHARS, "must not contain control characters"));

/** `POST /sessions`: the connect payload the SDK also puts in its QR code. */
export const createSessionSchema = z.strictObject({
  v: z.optional(z.literal(1)),
  session_id: z.optional(sessionIdSchema),
  chain_id: z.string().check(z.minLength(1), z.maxLength(64)),
  origin: z.strictObject({ name: label(80), url: z.string().check(z.minLength(1), z.maxLength(256)) }),
  expires_at: z.optional(z.iso.datetime({ offset: true })),
  relay_url: z.optional(z.string().check(z.minLength(1), z.maxLength(512))),
});
export type CreateSessionBody = z.output<typeof createSessionSchema>;

/** A session id from a path, or a 400 that says what a session id looks like. */
export function parseSessionId(value: string): string {
  if (!SESSION_ID_PATTERN.test(value)) {
    throw invalidArgument("INVALID_SESSION_ID", "A session id is cs_ followed by 32 lowercase hex characters");
  }
  return value;
}

/** The confirm body as sent: the SDK's camelCase spellings are accepted beside the snake_case ones, never both at once. */
export const walletProofBodySchema = z.strictObject({
  session_id: z.optional(z.string()),
  sessionId: z.optional(z.string()),
  address: z.string().check(z.maxLength(90)),
  pubkey_base64: z.optional(z.string().check(z.maxLength(4096))),
  pubkeyBase64: z.optional(z.string().check(z.maxLength(4096))),
  account_label: z.optional(z.nullable(label(64))),
  accountLabel: z.optional(z.nullable(label(64))),
});

/**
 * The wallet proof of a confirm body, checked against the path's session id, the configured
 * address prefix and the public-key lengths the configured key types allow.
 */
export function parseWalletProof(
  body: unknown,
  rules: { pathSessionId: string; bech32Prefix: string; keyLengths: ReadonlySet<number> },
): WalletProof {
  const raw = parseOrRefuse(walletProofBodySchema, body, "INVALID_PROOF");
  const sessionId = oneOf(raw.session_id, raw.sessionId, "session_id", "sessionId");
  const pubkey = oneOf(raw.pubkey_base64, raw.pubkeyBase64, "pubkey_base64", "pubkeyBase64");
  const accountLabel = raw.account_label !== undefined && raw.accountLabel !== undefined
    ? conflict("account_label", "accountLabel")
    : (raw.account_label ?? raw.accountLabel ?? null);

  if (sessionId === undefined) throw invalidArgument("INVALID_PROOF", "session_id is required", { field: "session_id" });
  if (!sessionId.startsWith("cs_")) throw invalidArgument("INVALID_PROOF", "session_id must start with cs_", { field: "session_id" });
  if (sessionId !== rules.pathSessionId) {
    throw invalidArgument("SESSION_ID_MISMATCH", "session_id in the body differs from the session in the path", { field: "session_id" });
  }
  const addressProblem = accountAddressProblem(raw.address, rules.bech32Prefix);
  if (addressProblem) throw invalidArgument("INVALID_ADDRESS", `address ${addressProblem}`, { field: "address" });
  if (pubkey === undefined) throw invalidArgument("INVALID_PROOF", "pubkey_base64 is required", { field: "pubkey_base64" });
  const keyBytes = canonicalBase64Length(pubkey);
  if (keyBytes === null) {
    throw invalidArgument("INVALID_PUBKEY", "pubkey_base64 must be canonical base64 (standard alphabet, padded)", { field: "pubkey_base64" });
  }
  if (!rules.keyLengths.has(keyBytes)) {
    const allowed = [...rules.keyLengths].join(" or ");
    throw invalidArgument("INVALID_PUBKEY", `pubkey_base64 decodes to ${keyBytes} bytes; keys here are ${allowed} bytes`, { field: "pubkey_base64" });
  }
  return { session_id: sessionId, address: raw.address, pubkey_base64: pubkey, account_label: accountLabel };
}

function oneOf(snake: string | undefined, camel: string | undefined, snakeName: string, camelName: string): string | undefined {
  if (snake !== undefined && camel !== undefined) conflict(snakeName, camelName);
  return snake ?? camel;
}

function conflict(a: string, b: string): never {
  throw invalidArgument("INVALID_PROOF", `Send ${a} or ${b}, not both`, { field: a });
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Decoded byte length of canonical base64, or null when `value` is not canonical base64. */
export function canonicalBase64Length(value: string): number | null {
  if (value.length === 0 || !BASE64.test(value)) return null;
  let bytes: string;
  try {
    bytes = atob(value);
  } catch {
    return null;
  }
  // Canonical means the unused bits of the last symbol are zero: re-encoding gives the input back.
  return btoa(bytes) === value ? bytes.length : null;
}

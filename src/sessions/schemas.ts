/**
 * Validation of the pairing wire contract (docs/WALLET-PROTOCOL.md): session ids, the create
 * payload, and the wallet proof (read by the protocol's `normalizeWalletProof`, refused here in
 * the one error shape).
 */
import * as z from "zod/mini";
import { invalidArgument } from "../errors";
import { freeText, normalizeWalletProof, SESSION_ID_PATTERN, type WalletProof } from "../protocol/index";

/**
 * Body limits: a create payload is small; a proof carries a public key of up to 4096 bytes, which
 * fits twice (both spellings) with room for the rest.
 */
export const SESSION_CREATE_BODY_LIMIT = 4096;
export const SESSION_CONFIRM_BODY_LIMIT = 16384;

/** A session id, in a path or a body: `cs_` and 32 lowercase hex characters. */
export const sessionIdSchema = z
  .string()
  .check(z.regex(SESSION_ID_PATTERN, "must be cs_ followed by 32 lowercase hex characters"));

/** The path parameters of `/sessions/:id…`. */
export const sessionPathSchema = z.object({ id: sessionIdSchema });

/** `POST /sessions`: the connect payload the SDK also puts in its QR code. */
export const createSessionSchema = z.strictObject({
  v: z.optional(z.literal(1)),
  session_id: z.optional(sessionIdSchema),
  chain_id: z.string().check(z.minLength(1), z.maxLength(64)),
  origin: z.strictObject({
    name: freeText(80).check(z.minLength(1)),
    url: z.string().check(z.minLength(1), z.maxLength(256)),
  }),
  expires_at: z.optional(z.iso.datetime({ offset: true })),
  relay_url: z.optional(z.string().check(z.minLength(1), z.maxLength(512))),
});

/** The wallet proof of a confirm body for the path's session, or a 400 naming the field and why. */
export function parseWalletProof(body: unknown, expected: { sessionId: string; bech32Prefix: string }): WalletProof {
  const result = normalizeWalletProof(body, expected);
  if (result.ok) return result.proof;
  const { reason, message, field } = result.problem;
  throw invalidArgument(reason, message, { field });
}

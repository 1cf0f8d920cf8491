/**
 * The schemas a wallet checks what it reads with: a connect payload (connect-payload.ts) and a sign
 * request (sign-request.ts). The wallet simulator (scripts/wallet.ts) and the tests use them; the
 * Worker only writes both, so they stay out of the Worker.
 */
import * as z from "zod/mini";
import { SESSION_ID_PATTERN, SIGN_REQUEST_ID_PATTERN } from "./ids.ts";

const NOT_BLANK = /\S/;

const messageSchema = z.object({ typeUrl: z.string().check(z.minLength(2)), value: z.record(z.string(), z.unknown()) });
const previewMessageSchema = z.object({
  type: z.string().check(z.minLength(1)),
  from: z.optional(z.string()),
  to: z.optional(z.string()),
  amount: z.optional(z.string()),
  denom: z.optional(z.string()),
  summary: z.optional(z.string()),
});

/**
 * The schema a wallet (or the simulator) checks a received sign request with. Strict at the top,
 * so a connect payload (`session_id`, `v`) is never taken for a sign request.
 */
export const signRequestSchema = z.strictObject({
  id: z.string().check(z.regex(SIGN_REQUEST_ID_PATTERN)),
  chain_id: z.string().check(z.minLength(1)),
  expires_at: z.iso.datetime({ offset: true }),
  origin: z.object({ name: z.string(), url: z.string() }),
  account_hint: z.string().check(z.minLength(1)),
  return_url: z.optional(z.string()),
  preview: z.object({
    title: z.string().check(z.regex(NOT_BLANK, "must not be blank")),
    summary: z.string().check(z.regex(NOT_BLANK, "must not be blank")),
    messages: z.array(previewMessageSchema).check(z.minLength(1)),
    fee: z.optional(z.object({ amount: z.string(), denom: z.string(), gas: z.string() })),
  }),
  transaction: z.object({ memo: z.optional(z.string()), messages: z.array(messageSchema).check(z.minLength(1)) }),
});

/**
 * A connect payload as a wallet reads it from a link: `v` 1, the session's id, chain and origin,
 * an expiry, and where to relay the proof (absent: the wallet's own service). Fields beyond these
 * are ignored; a sign request's (`preview`, `transaction`) make it not a connect payload.
 */
export const connectPayloadSchema = z
  .looseObject({
    v: z.literal(1),
    session_id: z.string().check(z.regex(SESSION_ID_PATTERN, "must be cs_ followed by 32 lowercase hex characters")),
    chain_id: z.string(),
    origin: z.object({ name: z.string(), url: z.string() }),
    expires_at: z.string(),
    relay_url: z.optional(z.string()),
  })
  .check(
    z.refine((value) => !("preview" in value) && !("transaction" in value), "a sign request is not a connect payload"),
  );

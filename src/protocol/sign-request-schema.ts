/**
 * The schema a wallet checks a received sign request (sign-request.ts) with: the wallet simulator
 * (scripts/wallet.ts) and the tests use it; the Worker only builds sign requests, so it stays out of the Worker.
 */
import * as z from "zod/mini";
import { SIGN_REQUEST_ID_PATTERN } from "./ids.ts";

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

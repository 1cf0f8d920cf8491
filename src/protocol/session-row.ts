/**
 * The session row of the wallet-pairing wire contract, and what a session answer carries. The
 * page and the OpenAPI document read with its schema; the Worker only writes rows and takes their
 * types from the barrel (index.ts exports types only), so the schema stays out of the Worker.
 */
import * as z from "zod/mini";
import { SESSION_ID_PATTERN } from "./ids.ts";

/** The states of a session; every state but `pending` is settled. */
const sessionStatusSchema = z.enum(["pending", "connected", "cancelled", "expired"]);
export type SessionStatus = z.output<typeof sessionStatusSchema>;

const isoTime = z.iso.datetime();
const nullableText = z.nullable(z.string());

/** The row every session endpoint answers with, and the push channel sends. */
export const sessionRowSchema = z.object({
  session_id: z.string().check(z.regex(SESSION_ID_PATTERN)),
  status: sessionStatusSchema,
  chain_id: z.string(),
  /** `url` is a bare origin, e.g. `https://app.example`. */
  origin: z.object({ name: z.string(), url: z.string() }),
  created_at: isoTime,
  expires_at: isoTime,
  address: nullableText,
  pubkey_base64: nullableText,
  account_label: nullableText,
  connected_at: z.nullable(isoTime),
});
export type SessionRow = z.output<typeof sessionRowSchema>;

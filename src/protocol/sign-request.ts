/**
 * The sign request of wallet-protocol.md: what the page asks the wallet to sign, carried by a
 * `<scheme>://sign?p=…` link. It names the chain, expires, says who asks, hints which account
 * must sign, shows a human preview and carries the transaction's messages.
 */
import * as z from "zod/mini";
import type { ChainContext } from "./chain-context.ts";
import { MessageError } from "./messages/errors.ts";
import { requireSigner } from "./messages/signers.ts";
import type { TxMessage } from "./messages/tx-message.ts";
import { mintSignRequestId, SIGN_REQUEST_ID_PATTERN } from "./ids.ts";
import { describeMessage } from "./message-preview.ts";

/** `{id, chain_id, expires_at, origin, account_hint, preview, transaction}`. */
export interface SignRequest {
  readonly id: string;
  readonly chain_id: string;
  readonly expires_at: string;
  readonly origin: { readonly name: string; readonly url: string };
  /** The address that must sign: the wallet selects (or asks for) this account. */
  readonly account_hint: string;
  readonly preview: { readonly title: string; readonly summary: string; readonly messages: readonly string[]; readonly fee?: string };
  readonly transaction: { readonly memo: string; readonly messages: readonly TxMessage[] };
}

/** How long a sign request stays valid by default: five minutes, as a session. */
export const SIGN_REQUEST_TTL_MS = 5 * 60 * 1000;

/**
 * A sign request for `messages`, all signed by `signer` (checked against each message's signer
 * rule). `title` and `summary` default to the first message's description.
 */
export function buildSignRequest(
  ctx: ChainContext,
  input: {
    origin: { name: string; url: string };
    signer: string;
    messages: readonly TxMessage[];
    title?: string;
    summary?: string;
    memo?: string;
    expiresAt?: Date;
    now?: number;
    id?: string;
  },
): SignRequest {
  if (input.messages.length === 0) throw new MessageError("EMPTY_TRANSACTION", "A sign request needs at least one message", "messages");
  requireSigner(ctx, input.messages, input.signer);
  const id = input.id ?? mintSignRequestId();
  if (!SIGN_REQUEST_ID_PATTERN.test(id)) throw new MessageError("INVALID_ID", "id must be pl_ followed by 32 lowercase hex characters", "id");
  const lines = input.messages.map((m) => describeMessage(ctx, m));
  return {
    id,
    chain_id: ctx.chainId,
    expires_at: (input.expiresAt ?? new Date((input.now ?? Date.now()) + SIGN_REQUEST_TTL_MS)).toISOString(),
    origin: { name: input.origin.name, url: new URL(input.origin.url).origin },
    account_hint: input.signer,
    preview: { title: input.title ?? "Sign a transaction", summary: input.summary ?? lines[0]!, messages: lines },
    transaction: { memo: input.memo ?? "", messages: input.messages.map((m) => ({ typeUrl: m.typeUrl, value: m.value })) },
  };
}

const messageSchema = z.object({ typeUrl: z.string().check(z.minLength(2)), value: z.record(z.string(), z.unknown()) });

/** The schema a wallet (or the simulator) checks a received sign request with. */
export const signRequestSchema = z.object({
  id: z.string().check(z.regex(SIGN_REQUEST_ID_PATTERN)),
  chain_id: z.string().check(z.minLength(1)),
  expires_at: z.iso.datetime({ offset: true }),
  origin: z.object({ name: z.string(), url: z.string() }),
  account_hint: z.string(),
  preview: z.object({
    title: z.string(),
    summary: z.string(),
    messages: z.array(z.string()),
    fee: z.optional(z.string()),
  }),
  transaction: z.object({ memo: z.string(), messages: z.array(messageSchema).check(z.minLength(1)) }),
});

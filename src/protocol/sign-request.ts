/**
 * The sign request of docs/WALLET-PROTOCOL.md, in the wallet's own format: what the page asks the
 * wallet to sign, carried by a `<scheme>://sign?p=…` link, a QR code or the in-app bridge. It names
 * the chain, expires, says who asks, hints which account must sign, shows a human preview and
 * carries the transaction's messages. Never `session_id`, never `v`: those mark a connect payload.
 */
import * as z from "zod/mini";
import type { ChainContext } from "./chain-context.ts";
import { encodeWalletPayload, signDeepLink } from "./deep-links.ts";
import { MessageError } from "./messages/errors.ts";
import { parseFields } from "./messages/fields.ts";
import { requireSigner } from "./messages/signers.ts";
import type { TxMessage } from "./messages/tx-message.ts";
import { mintSignRequestId, SIGN_REQUEST_ID_PATTERN } from "./ids.ts";
import { describeMessage, previewMessage, type PreviewMessage } from "./message-preview.ts";

/** The fee the wallet shows; amounts are integer strings. */
export interface PreviewFee {
  readonly amount: string;
  readonly denom: string;
  readonly gas: string;
}

/** `{id, chain_id, expires_at, origin, account_hint, return_url?, preview, transaction}`. */
export interface SignRequest {
  readonly id: string;
  readonly chain_id: string;
  readonly expires_at: string;
  readonly origin: { readonly name: string; readonly url: string };
  /** The address that must sign: the wallet selects (or asks for) this account. */
  readonly account_hint: string;
  /** Where the wallet may send the user back after signing (on the request's origin). */
  readonly return_url?: string;
  readonly preview: {
    readonly title: string;
    readonly summary: string;
    readonly messages: readonly PreviewMessage[];
    readonly fee?: PreviewFee;
  };
  readonly transaction: { readonly memo?: string; readonly messages: readonly TxMessage[] };
}

/** How long a sign request stays valid by default: five minutes, as a session. */
const SIGN_REQUEST_TTL_MS = 5 * 60 * 1000;

/** The most characters a QR code carries that phone cameras still read reliably (the wallet's own limit). */
export const MAX_QR_CHARS = 2800;

/**
 * A sign request for `messages`, all signed by `signer` (checked against each message's signer
 * rule). `title` defaults to "Sign a transaction" and `summary` to the messages' sentences; both
 * are trimmed and must not be blank.
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
    returnUrl?: string;
    fee?: PreviewFee;
    expiresAt?: Date;
    now?: number;
    id?: string;
  },
): SignRequest {
  if (input.messages.length === 0)
    throw new MessageError("EMPTY_TRANSACTION", "A sign request needs at least one message", "messages");
  requireSigner(ctx, input.messages, input.signer);
  const id = input.id ?? mintSignRequestId();
  if (!SIGN_REQUEST_ID_PATTERN.test(id))
    throw new MessageError("INVALID_ID", "id must be pl_ followed by 32 lowercase hex characters", "id");
  const origin = new URL(input.origin.url).origin;
  const title = previewText("title", input.title ?? "Sign a transaction");
  const summary = previewText(
    "summary",
    input.summary ?? input.messages.map((m) => describeMessage(ctx, m)).join("; "),
  );
  const memo = input.memo ?? "";
  return {
    id,
    chain_id: ctx.chainId,
    expires_at: (input.expiresAt ?? new Date((input.now ?? Date.now()) + SIGN_REQUEST_TTL_MS)).toISOString(),
    origin: { name: input.origin.name, url: origin },
    account_hint: input.signer,
    ...(input.returnUrl === undefined ? {} : { return_url: returnUrlOn(origin, input.returnUrl) }),
    preview: {
      title,
      summary,
      messages: input.messages.map((m) => previewMessage(ctx, m)),
      ...(input.fee === undefined
        ? {}
        : parseFields(z.object({ fee: feeSchema() }), { fee: input.fee }, "INVALID_FEE")),
    },
    transaction: {
      ...(memo === "" ? {} : { memo }),
      messages: input.messages.map((m) => ({ typeUrl: m.typeUrl, value: m.value })),
    },
  };
}

/**
 * What a sign QR code shows: the raw base64 when it fits, else the sign deep link when that fits,
 * else null (too large for a QR: the page offers only its "Open wallet" action).
 */
export function signQrContent(scheme: string, request: SignRequest): string | null {
  return chooseQrContent(encodeWalletPayload(request), signDeepLink(scheme, request));
}

/**
 * The wallet's QR rule on the two forms of one request. (A link %-encodes the base64's `+ / =`,
 * so with standard base64 it is never the shorter one; the rule keeps the wallet's order anyway.)
 */
export function chooseQrContent(raw: string, link: string): string | null {
  if (raw.length <= MAX_QR_CHARS) return raw;
  return link.length <= MAX_QR_CHARS ? link : null;
}

const INTEGER = /^(0|[1-9][0-9]*)$/;

function previewText(field: "title" | "summary", value: string): string {
  const trimmed = value.trim();
  if (!trimmed) throw new MessageError("EMPTY_PREVIEW", `preview.${field} must not be blank`, field);
  return trimmed;
}

function returnUrlOn(origin: string, value: string): string {
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    // Refused below.
  }
  if (!url || url.origin !== origin)
    throw new MessageError("INVALID_RETURN_URL", `return_url must be a URL on ${origin}`, "returnUrl");
  return url.href;
}

/** Built for a request that carries a fee, not at load: every bundle that imports this module would carry it. */
const feeSchema = () =>
  z.strictObject({
    amount: z.string().check(z.regex(INTEGER, "must be an integer string")),
    denom: z.string().check(z.minLength(1)),
    gas: z.string().check(z.regex(INTEGER, "must be an integer string")),
  });

/** The connect payload of docs/WALLET-PROTOCOL.md: the body of `POST /sessions` and the QR's content. */
import * as z from "zod/mini";
import type { ChainContext } from "./chain-context.ts";
import { SESSION_ID_PATTERN } from "./ids.ts";

/** `{v:1, session_id, chain_id, origin, expires_at, relay_url}`. */
export interface ConnectPayload {
  readonly v: 1;
  readonly session_id: string;
  readonly chain_id: string;
  readonly origin: { readonly name: string; readonly url: string };
  readonly expires_at: string;
  readonly relay_url: string;
}

/** The SDK's session lifetime: five minutes. */
export const CONNECT_TTL_MS = 5 * 60 * 1000;

/**
 * The connect payload for a session id minted by the page: the wallet relays its proof to this
 * origin's confirm endpoint, `<origin>/api/<walletPath>/sessions/<id>/confirm`, which names the
 * host's onboarding (`?onboarding=ob_…`) when the server signed the id for that onboarding's page.
 */
export function buildConnectPayload(
  ctx: ChainContext,
  input: {
    sessionId: string;
    origin: { name: string; url: string };
    expiresAt?: Date;
    now?: number;
    onboarding?: string | null;
  },
): ConnectPayload {
  const origin = new URL(input.origin.url).origin;
  const confirm = `${origin}/api/${ctx.walletPath}/sessions/${input.sessionId}/confirm`;
  const expiresAt = input.expiresAt ?? new Date((input.now ?? Date.now()) + CONNECT_TTL_MS);
  return {
    v: 1,
    session_id: input.sessionId,
    chain_id: ctx.chainId,
    origin: { name: input.origin.name, url: origin },
    expires_at: expiresAt.toISOString(),
    relay_url: `${confirm}${onboardingQuery(input.onboarding)}`,
  };
}

/** `?onboarding=<id>` for a session bound to a host's onboarding, else nothing. */
export const onboardingQuery = (onboarding: string | null | undefined) =>
  onboarding ? `?onboarding=${onboarding}` : "";

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

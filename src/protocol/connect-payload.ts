/** The connect payload of docs/WALLET-PROTOCOL.md: the body of `POST /sessions` and the QR's content. */
import type { ChainContext } from "./chain-context.ts";

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

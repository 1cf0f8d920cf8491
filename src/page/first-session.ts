/**
 * The page's first session, in its first response: a session id the Worker signed (stored only
 * when first used: src/sessions/signed-ids.ts), the connect link the page would build for it, and
 * that link's QR code as SVG. A load costs no storage, so link previews, crawlers and bursts of
 * loads store nothing; the wallet's confirm or the page's script stores it.
 */
import type { Config } from "../config";
import {
  accountAddressProblem,
  buildConnectPayload,
  chainContext,
  connectDeepLink,
  CONNECT_TTL_MS,
  ONBOARDING_ID_PATTERN,
} from "../protocol/index";
import { escapeHtml } from "../protocol/html";
import { qrSvg } from "../protocol/qr-code";
import { mintSignedSessionId } from "../sessions/signed-ids";
import { PAGE_ORIGIN_NAME } from "../protocol/page-origin";
import { OPEN_ON_THIS_PHONE, SCAN_CAPTION, SCAN_ELSEWHERE_CAPTION } from "./first-screen-words";

/** What the document's `#first-session` block carries for the page's script. */
export interface FirstSession {
  session_id: string;
  expires_at: string;
  /** `<scheme>://connect?p=…`: the QR's content and the "Open wallet" link's href. */
  link: string;
  /** The host's onboarding the id is signed for: the wallet's confirm pairs it, with no page in between. */
  onboarding?: string;
}

/** Which page a link opens: a host's onboarding, or a self-hoster's operator. */
export type PageKind = "onboarding" | "operator";

/**
 * The kind of page `pageUrl` opens when it needs a wallet connection at once, else null (no
 * valid operator: the page shows its form; a malformed onboarding id: the page says the link is
 * not valid). Decided as the page's script decides it (page/main.ts, page/start-form.ts).
 */
export function pageKind(config: Config, pageUrl: URL): PageKind | null {
  const onboarding = pageUrl.searchParams.get("onboarding");
  if (onboarding !== null) return ONBOARDING_ID_PATTERN.test(onboarding) ? "onboarding" : null;
  const operator = pageUrl.searchParams.get("operator")?.trim() ?? "";
  return operator !== "" && accountAddressProblem(operator, config.bech32Prefix) === null ? "operator" : null;
}

/**
 * A fresh signed session for one load of the page at `origin`, with the server's default life,
 * signed for `onboarding` on a host's onboarding page; null without a signing key.
 */
export async function firstSession(
  config: Config,
  origin: string,
  now: number,
  onboarding: string | null = null,
): Promise<FirstSession | null> {
  if (config.sessionSigningKey === null) return null;
  const life = Math.min(CONNECT_TTL_MS, config.sessionTtlMaxSeconds * 1000);
  const { sessionId, expiresAt } = await mintSignedSessionId(
    { secret: config.sessionSigningKey, origin, chainId: config.chainId, onboarding },
    now + life,
  );
  const payload = buildConnectPayload(chainContext(config), {
    sessionId,
    origin: { name: PAGE_ORIGIN_NAME, url: origin },
    expiresAt: new Date(expiresAt),
    onboarding,
  });
  const link = connectDeepLink(config.walletScheme, payload);
  return { session_id: sessionId, expires_at: payload.expires_at, link, ...(onboarding ? { onboarding } : {}) };
}

/**
 * Step 1 as the page's script shows it, without the script: the QR, the link, and how long it is
 * valid. Which comes first is the stylesheet's: the QR with a pointer, "Open wallet" on a phone.
 */
export function connectStepHtml(first: FirstSession, now: number): string {
  const minutes = Math.max(1, Math.round((Date.parse(first.expires_at) - now) / 60_000));
  const link = escapeHtml(first.link);
  return (
    '<div class="connect">' +
    `<p class="connect-lead">${OPEN_ON_THIS_PHONE}</p>` +
    '<figure class="connect-code">' +
    `<figcaption><span class="for-pointer">${SCAN_CAPTION}</span>` +
    `<span class="for-touch">${SCAN_ELSEWHERE_CAPTION}</span></figcaption>` +
    qrSvg(first.link, {
      class: "qr",
      role: "img",
      "aria-label": "QR code of the wallet connection request",
      "data-testid": "connect-qr",
    }) +
    "</figure>" +
    `<div class="actions"><a class="button primary" data-testid="connect-link" href="${link}">Open wallet</a></div>` +
    `<p class="muted connect-note">The request is valid for ${minutes} minute${minutes === 1 ? "" : "s"}. ` +
    "Your recovery phrase is never needed.</p></div>"
  );
}

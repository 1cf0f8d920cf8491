import type { Config } from "../config";
import { accountAddressProblem, buildConnectPayload, chainContext, mintSessionId, type ConnectPayload } from "../protocol/index";
import { PAGE_ORIGIN_NAME } from "../page-settings";

/** The session create the page's inline script sends before app.js arrives: where, and the connect payload without `expires_at` (the server keeps its default life). */
export interface FirstSessionRequest {
  url: string;
  body: Omit<ConnectPayload, "expires_at">;
}

/**
 * The first session create for a load of the page at `pageUrl`, or null when the link names no
 * valid operator (the page then shows its form and needs no session). The id is fresh for every
 * load, minted as the page would mint it.
 */
export function firstSessionRequest(config: Config, pageUrl: URL): FirstSessionRequest | null {
  const operator = pageUrl.searchParams.get("operator")?.trim() ?? "";
  if (operator === "" || accountAddressProblem(operator, config.bech32Prefix) !== null) return null;
  const origin = { name: PAGE_ORIGIN_NAME, url: pageUrl.origin };
  const { expires_at: _serverDefault, ...body } = buildConnectPayload(chainContext(config), { sessionId: mintSessionId(), origin });
  return { url: `/api/${config.walletPath}/sessions`, body };
}

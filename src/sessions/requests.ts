/**
 * What each session request must carry, decided in middleware before its handler runs: the
 * path's session id, a create's payload as the row to store, a confirm's wallet proof. A handler
 * reads them with `c.req.valid(…)` and never checks them again.
 */
import type { Context } from "hono";
import { validator } from "hono/validator";
import type { AppEnv } from "../app-env";
import { invalidArgument } from "../errors";
import { jsonBody } from "../http/json-body";
import { parseOrRefuse } from "../http/validate";
import { mintSessionId } from "../protocol/index";
import { sessionExpiry } from "./expiry";
import type { NewSession } from "./machine";
import { checkRelayUrl, checkSessionOrigin } from "./origin-rules";
import {
  createSessionSchema,
  parseWalletProof,
  SESSION_CONFIRM_BODY_LIMIT,
  SESSION_CREATE_BODY_LIMIT,
  sessionPathSchema,
} from "./schemas";

/** The session id of the path, as `c.req.valid("param").id`; 400 `INVALID_SESSION_ID` otherwise. */
export const sessionIdParam = validator("param", (params) =>
  parseOrRefuse(sessionPathSchema, params, "INVALID_SESSION_ID"),
);

/**
 * A create's connect payload, checked against this server (its chain id, its own origin, its
 * exact confirm URL, the expiry cap), as the row to store; the id is minted when the body has none.
 */
export const newSessionBody = jsonBody(SESSION_CREATE_BODY_LIMIT, (body, c: Context<AppEnv>): NewSession => {
  const config = c.get("config");
  const payload = parseOrRefuse(createSessionSchema, body);
  if (payload.chain_id !== config.chainId) {
    throw invalidArgument("CHAIN_ID_MISMATCH", `chain_id must be ${config.chainId}`, { field: "chain_id" });
  }
  const serverOrigin = new URL(c.req.url).origin;
  const origin = checkSessionOrigin(payload.origin.url, serverOrigin);
  if (payload.relay_url !== undefined && payload.session_id === undefined) {
    throw invalidArgument("INVALID_RELAY_URL", "relay_url names a session; send its session_id too", {
      field: "relay_url",
    });
  }
  const sessionId = payload.session_id ?? mintSessionId();
  if (payload.relay_url !== undefined) {
    checkRelayUrl(payload.relay_url, `${serverOrigin}/api/${config.walletPath}/sessions/${sessionId}/confirm`);
  }
  const expiresAt = sessionExpiry(payload.expires_at, Date.now(), config.sessionTtlMaxSeconds);
  return {
    session_id: sessionId,
    chain_id: payload.chain_id,
    origin: { name: payload.origin.name, url: origin },
    expires_at: new Date(expiresAt).toISOString(),
  };
});

/** A confirm's body as the wallet proof for the path's session (validated by `sessionIdParam` before it). */
export const walletProofBody = jsonBody(SESSION_CONFIRM_BODY_LIMIT, (body, c: Context<AppEnv>) =>
  parseWalletProof(body, { sessionId: c.req.param("id")!, bech32Prefix: c.get("config").bech32Prefix }),
);

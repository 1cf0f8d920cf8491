/** Handlers of the session endpoints: validate, ask the session's Durable Object, answer. */
import type { Context } from "hono";
import type { AppEnv } from "../app-env";
import { ApiError, GrpcCode, invalidArgument } from "../errors";
import { readJsonObject } from "../http/json-body";
import { parseOrRefuse } from "../http/validate";
import { checkRelayUrl, checkSessionOrigin, requireSameOriginBrowser, requireSecureTransport } from "./origin-rules";
import { mintSessionId } from "../protocol/index";
import { sessionExpiry } from "./expiry";
import type { NewSession } from "./machine";
import type { SessionOutcome } from "./outcome";
import { CONFIRM_BODY_LIMIT, CREATE_BODY_LIMIT, createSessionSchema, parseSessionId, parseWalletProof } from "./schemas";

type SessionContext = Context<AppEnv>;

/** `POST /sessions`: stores a pending row for a client-minted or freshly minted id. */
export async function createSession(c: SessionContext): Promise<Response> {
  const config = c.get("config");
  const requestUrl = new URL(c.req.url);
  requireSecureTransport(requestUrl);
  requireSameOriginBrowser(c.req.raw.headers, requestUrl.origin);
  await enforceCreateRateLimit(c);

  const body = parseOrRefuse(createSessionSchema, await readJsonObject(c.req.raw, CREATE_BODY_LIMIT));
  if (body.chain_id !== config.chainId) {
    throw invalidArgument("CHAIN_ID_MISMATCH", `chain_id must be ${config.chainId}`, { field: "chain_id" });
  }
  const origin = checkSessionOrigin(body.origin.url, requestUrl.origin);
  if (body.relay_url !== undefined && body.session_id === undefined) {
    throw invalidArgument("INVALID_RELAY_URL", "relay_url names a session; send its session_id too", { field: "relay_url" });
  }
  const sessionId = body.session_id ?? mintSessionId();
  if (body.relay_url !== undefined) {
    checkRelayUrl(body.relay_url, `${requestUrl.origin}/api/${config.walletPath}/sessions/${sessionId}/confirm`);
  }

  const expiresAt = sessionExpiry(body.expires_at, Date.now(), config.sessionTtlMaxSeconds);
  const session: NewSession = {
    session_id: sessionId,
    chain_id: body.chain_id,
    origin: { name: body.origin.name, url: origin },
    expires_at: new Date(expiresAt).toISOString(),
  };
  return answer(await stubFor(c, sessionId).create(session), {
    location: `/api/${config.walletPath}/sessions/${sessionId}`,
  });
}

/** `GET /sessions/:id`: the current row, or a WebSocket subscription to it. */
export async function readSession(c: SessionContext): Promise<Response> {
  const sessionId = parseSessionId(c.req.param("id")!);
  if (c.req.header("upgrade")?.toLowerCase() === "websocket") {
    // Browsers send Origin on every WebSocket; a page of another origin must not read the row.
    requireSameOriginBrowser(c.req.raw.headers, new URL(c.req.url).origin);
    return stubFor(c, sessionId).fetch(c.req.raw);
  }
  return answer(await stubFor(c, sessionId).read());
}

/** `DELETE /sessions/:id`: cancels a pending session. */
export async function cancelSession(c: SessionContext): Promise<Response> {
  const sessionId = parseSessionId(c.req.param("id")!);
  requireSameOriginBrowser(c.req.raw.headers, new URL(c.req.url).origin);
  return answer(await stubFor(c, sessionId).cancel());
}

/** `POST /sessions/:id/confirm`: the wallet's relayed proof. */
export async function confirmSession(c: SessionContext): Promise<Response> {
  const config = c.get("config");
  requireSecureTransport(new URL(c.req.url));
  const sessionId = parseSessionId(c.req.param("id")!);
  const proof = parseWalletProof(await readJsonObject(c.req.raw, CONFIRM_BODY_LIMIT), { sessionId, bech32Prefix: config.bech32Prefix });
  return answer(await stubFor(c, sessionId).confirm(proof));
}

function stubFor(c: SessionContext, sessionId: string) {
  const namespace = c.env.PAIRING_SESSIONS;
  return namespace.get(namespace.idFromName(sessionId));
}

function answer(outcome: SessionOutcome, headers: Record<string, string> = {}): Response {
  if (!outcome.ok) throw new ApiError(outcome.error);
  return Response.json(outcome.row, {
    status: outcome.status,
    headers: { "cache-control": "no-store", ...(outcome.status === 201 ? headers : {}) },
  });
}

async function enforceCreateRateLimit(c: SessionContext): Promise<void> {
  if (!c.get("config").rateLimits) return;
  const client = c.req.header("cf-connecting-ip") ?? "unknown";
  const { success } = await c.env.SESSION_CREATE_LIMITER.limit({ key: client });
  if (!success) {
    throw new ApiError(
      { status: 429, code: GrpcCode.RESOURCE_EXHAUSTED, reason: "RATE_LIMITED", message: "Too many sessions created from this client; retry in a minute" },
      { "retry-after": "60" },
    );
  }
}

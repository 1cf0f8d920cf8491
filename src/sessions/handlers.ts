/** Handlers of the session endpoints: ask the session's Durable Object with validated values, answer. */
import type { Context } from "hono";
import type { AppEnv } from "../app-env";
import { respond } from "../http/answer";
import { requireSameOriginBrowser } from "../http/origin-guards";
import type { WalletProof } from "../protocol/index";
import type { NewSession } from "./machine";

type SessionContext<Body = never> = Context<AppEnv, string, { out: { param: { id: string }; json: Body } }>;

/** `POST /sessions`: stores the pending row of a validated connect payload. */
export async function createSession(c: Context<AppEnv, string, { out: { json: NewSession } }>): Promise<Response> {
  const session = c.req.valid("json");
  return respond(await stubFor(c, session.session_id).create(session), {
    location: `/api/${c.get("config").walletPath}/sessions/${session.session_id}`,
  });
}

/** `GET /sessions/:id`: the current row, or a WebSocket subscription to it. */
export async function readSession(c: SessionContext): Promise<Response> {
  const { id } = c.req.valid("param");
  if (c.req.header("upgrade")?.toLowerCase() === "websocket") {
    // Browsers send Origin on every WebSocket; a page of another origin must not read the row.
    requireSameOriginBrowser(c.req.raw.headers, new URL(c.req.url).origin);
    return stubFor(c, id).fetch(c.req.raw);
  }
  return respond(await stubFor(c, id).read());
}

/** `DELETE /sessions/:id`: cancels a pending session. */
export async function cancelSession(c: SessionContext): Promise<Response> {
  return respond(await stubFor(c, c.req.valid("param").id).cancel());
}

/** `POST /sessions/:id/confirm`: the wallet's relayed proof. */
export async function confirmSession(c: SessionContext<WalletProof>): Promise<Response> {
  return respond(await stubFor(c, c.req.valid("param").id).confirm(c.req.valid("json")));
}

function stubFor(c: Context<AppEnv>, sessionId: string) {
  const namespace = c.env.PAIRING_SESSIONS;
  return namespace.get(namespace.idFromName(sessionId));
}

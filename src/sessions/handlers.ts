/** Handlers of the session endpoints: ask the session's Durable Object with validated values, answer. */
import type { Context } from "hono";
import type { AppEnv } from "../app-env";
import { errorResponse } from "../errors";
import { isRefusal, respond } from "../http/answer";
import { requireSameOriginBrowser } from "../http/origin-guards";
import { PAGE_ORIGIN_NAME } from "../protocol/page-origin";
import { ONBOARDING_ID_PATTERN, type WalletProof } from "../protocol/index";
import type { NewSession, SessionAnswer } from "./machine";
import { limitNewSessions } from "./rate-limit";
import { SESSION_EXPIRED } from "./refusals";
import { signedSession } from "./signed-ids";

type SessionContext<Body = never> = Context<AppEnv, string, { out: { param: { id: string }; json: Body } }>;
type SessionStub = ReturnType<typeof stubFor>;

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
    const stub = stubFor(c, id);
    const response = await stub.fetch(c.req.raw);
    if (response.status !== 404) return response;
    const first = await firstUse(c, id, stub);
    if (first === "expired") return errorResponse(SESSION_EXPIRED);
    return first === "stored" ? stub.fetch(c.req.raw) : response;
  }
  return respond(await withFirstUse(c, id, (stub) => stub.read()));
}

/** `DELETE /sessions/:id`: cancels a pending session. */
export async function cancelSession(c: SessionContext): Promise<Response> {
  return respond(await withFirstUse(c, c.req.valid("param").id, (stub) => stub.cancel()));
}

/** `POST /sessions/:id/confirm`: the wallet's relayed proof. */
export async function confirmSession(c: SessionContext<WalletProof>): Promise<Response> {
  const proof = c.req.valid("json");
  return respond(await withFirstUse(c, c.req.valid("param").id, (stub) => stub.confirm(proof)));
}

/**
 * Asks the session's object; when it has no row and the id is one this Worker signed (the page's
 * document carried it), stores the row first (its first use) and asks again.
 */
async function withFirstUse(
  c: Context<AppEnv>,
  id: string,
  ask: (stub: SessionStub) => Promise<SessionAnswer>,
): Promise<SessionAnswer> {
  const stub = stubFor(c, id);
  const answer = await ask(stub);
  if (!isRefusal(answer) || answer.reason !== "SESSION_NOT_FOUND") return answer;
  const first = await firstUse(c, id, stub);
  return first === "stored" ? ask(stub) : first === "expired" ? SESSION_EXPIRED : answer;
}

/**
 * Stores the row of a signed id that has none yet, counted against the client's create limit
 * (429 beyond it); "expired" when its expiry has passed (nothing stored), "unsigned" for any id
 * this Worker did not sign for this origin and chain, and for the onboarding the request names
 * (`?onboarding=ob_…`, the relay URL's; none for a self-hoster's page). The row keeps that onboarding.
 */
async function firstUse(c: Context<AppEnv>, id: string, stub: SessionStub): Promise<"stored" | "expired" | "unsigned"> {
  const config = c.get("config");
  if (config.sessionSigningKey === null) return "unsigned";
  const onboarding = c.req.query("onboarding") ?? null;
  if (onboarding !== null && !ONBOARDING_ID_PATTERN.test(onboarding)) return "unsigned";
  const origin = new URL(c.req.url).origin;
  const scope = { secret: config.sessionSigningKey, origin, chainId: config.chainId, onboarding };
  const session = await signedSession(scope, id, { name: PAGE_ORIGIN_NAME }, Date.now(), config.sessionTtlMaxSeconds);
  if (session === null) return "unsigned";
  if (session === "expired") return session;
  await limitNewSessions(c);
  // A 409 means a concurrent first use stored it: the same row either way.
  await stub.create(session);
  return "stored";
}

function stubFor(c: Context<AppEnv>, sessionId: string) {
  const namespace = c.env.PAIRING_SESSIONS;
  return namespace.get(namespace.idFromName(sessionId));
}

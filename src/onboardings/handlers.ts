/** Handlers of the host API and of the customer page's onboarding endpoints: validate, ask the onboarding's Durable Object, answer. */
import type { Context } from "hono";
import type { OnboardingOutcome } from "../../durable-objects/Onboarding";
import type { AppEnv } from "../app-env";
import { ApiError } from "../errors";
import { readJsonObject } from "../http/json-body";
import { parseOrRefuse } from "../http/validate";
import { LOCAL_PROFILE } from "../config/profiles";
import { mintOnboardingId } from "../protocol/index";
import { requireSameOriginBrowser, requireSecureTransport } from "../sessions/origin-rules";
import { canonicalBody } from "./idempotency";
import type { NewOnboarding } from "./machine";
import {
  authorizationClaimSchema,
  checkReturnUrl,
  createOnboardingSchema,
  CREATE_BODY_LIMIT,
  PAGE_BODY_LIMIT,
  parseIdempotencyKey,
  parseOnboardingId,
  payoutSchema,
} from "./schemas";

type OnboardingContext = Context<AppEnv>;

/** `POST /api/onboardings`: a new onboarding; with `Idempotency-Key`, the same one again for the same body. */
export async function createOnboarding(c: OnboardingContext): Promise<Response> {
  const config = c.get("config");
  const body = parseOrRefuse(createOnboardingSchema(config), await readJsonObject(c.req.raw, CREATE_BODY_LIMIT));
  const input: NewOnboarding = {
    id: mintOnboardingId(),
    operator: body.operator,
    label: body.label ?? "",
    reference: body.reference ?? null,
    origin: new URL(c.req.url).origin,
    return_url: body.return_url === undefined ? null : checkReturnUrl(body.return_url, config.profile === LOCAL_PROFILE),
  };
  const key = parseIdempotencyKey(c.req.header("idempotency-key"));
  if (key === null) return answer(await onboardingStub(c, input.id).create(input));
  const keys = c.env.IDEMPOTENCY_KEYS;
  return answer(await keys.get(keys.idFromName(key)).createOnce(await canonicalBody(body), input));
}

/** `GET /api/onboardings/:id`. */
export async function readOnboarding(c: OnboardingContext): Promise<Response> {
  return answer(await onboardingStub(c, parseOnboardingId(c.req.param("id")!)).read());
}

/** `POST /api/onboardings/:id/cancel`. */
export async function cancelOnboarding(c: OnboardingContext): Promise<Response> {
  return answer(await onboardingStub(c, parseOnboardingId(c.req.param("id")!)).cancel());
}

/** `GET /api/onboardings/:id/events`. */
export async function onboardingEvents(c: OnboardingContext): Promise<Response> {
  return answer(await onboardingStub(c, parseOnboardingId(c.req.param("id")!)).events());
}

/** `GET /api/onboarding-pages/:id`: the customer's view, or a WebSocket subscription to it. */
export async function readCustomerView(c: OnboardingContext): Promise<Response> {
  const stub = onboardingStub(c, parseOnboardingId(c.req.param("id")!));
  if (c.req.header("upgrade")?.toLowerCase() === "websocket") {
    // Browsers send Origin on every WebSocket; a page of another origin must not follow an onboarding.
    requireSameOriginBrowser(c.req.raw.headers, new URL(c.req.url).origin);
    return stub.fetch(c.req.raw);
  }
  return answer(await stub.customer());
}

/** `POST /api/onboarding-pages/:id/payout`: the payout the customer's wallet paired. */
export async function pairPayout(c: OnboardingContext): Promise<Response> {
  const id = pageRequest(c);
  const body = parseOrRefuse(payoutSchema(c.get("config")), await readJsonObject(c.req.raw, PAGE_BODY_LIMIT));
  const paired = "session_id" in body ? { sessionId: body.session_id } : { address: body.address, source: body.source };
  return answer(await onboardingStub(c, id).pair(paired));
}

/** `POST /api/onboarding-pages/:id/authorization`: the transaction hash the wallet app returned. */
export async function claimAuthorization(c: OnboardingContext): Promise<Response> {
  const id = pageRequest(c);
  const { txhash } = parseOrRefuse(authorizationClaimSchema, await readJsonObject(c.req.raw, PAGE_BODY_LIMIT));
  return answer(await onboardingStub(c, id).claimAuthorization(txhash));
}

/** The onboarding id of a page's write, refused unless it comes over HTTPS from this origin's pages. */
function pageRequest(c: OnboardingContext): string {
  const url = new URL(c.req.url);
  requireSecureTransport(url);
  requireSameOriginBrowser(c.req.raw.headers, url.origin);
  return parseOnboardingId(c.req.param("id")!);
}

function onboardingStub(c: OnboardingContext, id: string) {
  return c.env.ONBOARDINGS.get(c.env.ONBOARDINGS.idFromName(id));
}

/** The Durable Object's outcome as a response: no shared cache may keep any of it. */
function answer<T>(outcome: OnboardingOutcome<T>): Response {
  if (!outcome.ok) throw new ApiError(outcome.error);
  const headers: Record<string, string> = { "cache-control": "no-store" };
  const body = outcome.body as { url?: unknown };
  if (outcome.status === 201 && typeof body.url === "string") headers.location = body.url;
  return Response.json(outcome.body, { status: outcome.status, headers });
}

/**
 * Handlers of the host API and of the customer page's onboarding endpoints: ask the onboarding's
 * Durable Object (or, for the list and the feed, the index) with validated values, answer.
 */
import type { Context } from "hono";
import type { AppEnv } from "../../app-env";
import { GrpcCode, invalidArgument, type ErrorSpec } from "../../errors";
import { isRefusal, respond } from "../../http/answer";
import { requireSameOriginBrowser } from "../../http/origin-guards";
import { canonicalBody } from "./idempotency";
import { fanOut } from "../../fan-out";
import { fromIndex, onboardingsWithGivenUpEvents, queryEvents, queryOnboardings } from "../index/store";
import { onboardingSession } from "./pairing-session";
import type { NewOnboarding, PairedPayout } from "../machine";
import type { EventListQuery, OnboardingListQuery } from "./schemas";

type ById<Body = never> = Context<AppEnv, string, { out: { param: { id: string }; json: Body } }>;

/** `POST /api/onboardings`: a new onboarding; with `Idempotency-Key`, the same one again for the same body. */
export async function createOnboarding(
  c: Context<
    AppEnv,
    string,
    {
      out: {
        header: { idempotencyKey: string | null };
        json: { onboarding: NewOnboarding; fields: Record<string, unknown> };
      };
    }
  >,
): Promise<Response> {
  const { onboarding, fields } = c.req.valid("json");
  const key = c.req.valid("header").idempotencyKey;
  const keys = c.env.IDEMPOTENCY_KEYS;
  const answer =
    key === null
      ? await onboardingStub(c, onboarding.id).create(onboarding)
      : await keys.get(keys.idFromName(key)).createOnce(await canonicalBody(fields), onboarding);
  return respond(answer, !isRefusal(answer) && answer.status === 201 ? { location: answer.body.url } : {});
}

/** `GET /api/onboardings/:id`. */
export async function readOnboarding(c: ById): Promise<Response> {
  return respond(await onboardingStub(c, c.req.valid("param").id).read());
}

/** `POST /api/onboardings/:id/cancel`. */
export async function cancelOnboarding(c: ById): Promise<Response> {
  return respond(await onboardingStub(c, c.req.valid("param").id).cancel());
}

/** `GET /api/onboardings/:id/events`. */
export async function onboardingEvents(c: ById): Promise<Response> {
  return respond(await onboardingStub(c, c.req.valid("param").id).events());
}

/** `GET /api/onboarding-pages/:id`: the customer's view, or a WebSocket subscription to it. */
export async function readCustomerView(c: ById): Promise<Response> {
  const stub = onboardingStub(c, c.req.valid("param").id);
  if (c.req.header("upgrade")?.toLowerCase() === "websocket") {
    // Browsers send Origin on every WebSocket; a page of another origin must not follow an onboarding.
    requireSameOriginBrowser(c.req.raw.headers, new URL(c.req.url).origin);
    return stub.fetch(c.req.raw);
  }
  return respond(await stub.customer());
}

/** `POST /api/onboarding-pages/:id/payout`: the payout the customer's wallet paired. */
export async function pairPayout(c: ById<PairedPayout>): Promise<Response> {
  return respond(await onboardingStub(c, c.req.valid("param").id).pair(c.req.valid("json")));
}

/**
 * `POST /api/onboarding-pages/:id/session`: a new pairing session signed for this onboarding, while it waits for a
 * wallet.
 */
export async function newPairingSession(c: ById): Promise<Response> {
  const session = await onboardingSession(c, c.req.valid("param").id);
  return respond("reason" in session ? session : { status: 200, body: session });
}

/** `POST /api/onboarding-pages/:id/authorization`: the transaction hash the wallet app returned. */
export async function claimAuthorization(c: ById<string>): Promise<Response> {
  return respond(await onboardingStub(c, c.req.valid("param").id).claimAuthorization(c.req.valid("json")));
}

/** `GET /api/onboardings`: the index's onboardings, newest first, a page at a time. */
export async function listOnboardings(
  c: Context<AppEnv, string, { out: { query: OnboardingListQuery } }>,
): Promise<Response> {
  const query = c.req.valid("query");
  const page = await fromIndex(() => queryOnboardings(c.env.ONBOARDING_INDEX, query));
  if (page === null) throw cursorNotFound("starting_after", `no onboarding ${query.starting_after} is listed`);
  return respond({ status: 200, body: page });
}

/** `GET /api/events`: the index's events, oldest first, after the last one the host saw. */
export async function listEvents(c: Context<AppEnv, string, { out: { query: EventListQuery } }>): Promise<Response> {
  const query = c.req.valid("query");
  const page = await fromIndex(() => queryEvents(c.env.ONBOARDING_INDEX, query));
  if (page === null)
    throw cursorNotFound(
      "after",
      `no event ${query.after} is known (a deleted event's id is remembered 90 days; its seq always reads on)`,
    );
  return respond({ status: 200, body: page });
}

/** Onboardings whose given-up events one retry sends again at most (a host with more retries again). */
const RESEND_ONBOARDINGS_MAX = 500;

/**
 * `POST /api/webhook/retry`: the lane of the configured webhook URL tries its receiver now, if it
 * is failing, and every event given up (as the index lists them) is queued to be sent again.
 */
export async function retryWebhook(c: Context<AppEnv>): Promise<Response> {
  const webhook = c.get("config").hostWebhook;
  if (webhook === null) return respond(WEBHOOK_NOT_CONFIGURED);
  const lanes = c.env.WEBHOOK_LANES;
  const lane = await lanes.get(lanes.idFromName(webhook.url)).retryNow();
  const ids = await onboardingsWithGivenUpEvents(c.env.ONBOARDING_INDEX, RESEND_ONBOARDINGS_MAX);
  const resent = await fanOut(ids, (id) => onboardingStub(c, id).resend());
  const count = resent.reduce((sum, result) => sum + (result.status === "fulfilled" ? result.value : 0), 0);
  return respond({ status: 202, body: { ...lane, resent: count } });
}

const WEBHOOK_NOT_CONFIGURED: ErrorSpec = {
  status: 409,
  code: GrpcCode.FAILED_PRECONDITION,
  reason: "WEBHOOK_NOT_CONFIGURED",
  message:
    "No webhook is configured on this deployment, so there is nothing to retry: set HOST_WEBHOOK_URL and " +
    "HOST_WEBHOOK_SECRET (events are kept in each onboarding's log meanwhile)",
  metadata: { variable: "HOST_WEBHOOK_URL" },
};

const cursorNotFound = (parameter: string, what: string) =>
  invalidArgument("CURSOR_NOT_FOUND", `${parameter} must be the id of an item of an earlier page: ${what}`, {
    parameter,
  });

function onboardingStub(c: Context<AppEnv>, id: string) {
  return c.env.ONBOARDINGS.get(c.env.ONBOARDINGS.idFromName(id));
}

/**
 * The onboarding endpoints: the host API under `/api/onboardings` (bearer keys, no CORS, never
 * cached) and the customer page's under `/api/onboarding-pages` (the id is the capability).
 * Path, validation, handler.
 */
import { Hono } from "../../http/router";
import type { AppEnv } from "../../app-env";
import { methodNotAllowed } from "../../http/method-not-allowed";
import { sameOriginBrowser, secureTransport } from "../../http/origin-guards";
import {
  cancelOnboarding,
  claimAuthorization,
  createOnboarding,
  listEvents,
  listOnboardings,
  newPairingSession,
  onboardingEvents,
  pairPayout,
  readCustomerView,
  readOnboarding,
  retryWebhook,
} from "./handlers";
import { hostAuth } from "./host-auth";
import {
  authorizationClaimBody,
  eventListQuery,
  idempotencyKeyHeader,
  newOnboardingBody,
  noQuery,
  onboardingIdParam,
  onboardingListQuery,
  payoutBody,
} from "./requests";

/** `/api/onboardings…`: create, list, read, cancel and the events log, for the host's servers. */
export function hostRoutes(): Hono<AppEnv> {
  return new Hono<AppEnv>()
    .use(hostAuth())
    .post("/", noQuery, idempotencyKeyHeader, newOnboardingBody, createOnboarding)
    .get("/", onboardingListQuery, listOnboardings)
    .get("/:id", noQuery, onboardingIdParam, readOnboarding)
    .post("/:id/cancel", noQuery, onboardingIdParam, cancelOnboarding)
    .get("/:id/events", noQuery, onboardingIdParam, onboardingEvents)
    .all("/", methodNotAllowed("GET, HEAD, POST"))
    .all("/:id", methodNotAllowed("GET, HEAD"))
    .all("/:id/cancel", methodNotAllowed("POST"))
    .all("/:id/events", methodNotAllowed("GET, HEAD"));
}

/** `/api/events`: every onboarding's events in one order, the feed a host catches up from. */
export function eventRoutes(): Hono<AppEnv> {
  return new Hono<AppEnv>()
    .use(hostAuth())
    .get("/", eventListQuery, listEvents)
    .all("/", methodNotAllowed("GET, HEAD"));
}

/** `/api/webhook/retry`: a host that fixed its receiver has the failing endpoint tried now. */
export function webhookRoutes(): Hono<AppEnv> {
  return new Hono<AppEnv>()
    .use(hostAuth())
    .post("/retry", noQuery, retryWebhook)
    .all("/retry", methodNotAllowed("POST"));
}

/** `/api/onboarding-pages/:id…`: what the customer's page reads and reports (over HTTPS, from this origin's pages). */
export function customerRoutes(): Hono<AppEnv> {
  return new Hono<AppEnv>()
    .get("/:id", onboardingIdParam, readCustomerView)
    .post("/:id/payout", secureTransport, sameOriginBrowser, onboardingIdParam, payoutBody, pairPayout)
    .post("/:id/session", secureTransport, sameOriginBrowser, onboardingIdParam, newPairingSession)
    .post(
      "/:id/authorization",
      secureTransport,
      sameOriginBrowser,
      onboardingIdParam,
      authorizationClaimBody,
      claimAuthorization,
    )
    .all("/:id", methodNotAllowed("GET, HEAD"))
    .all("/:id/payout", methodNotAllowed("POST"))
    .all("/:id/session", methodNotAllowed("POST"))
    .all("/:id/authorization", methodNotAllowed("POST"));
}

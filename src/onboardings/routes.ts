/**
 * The onboarding endpoints: the host API under `/api/onboardings` (bearer keys, no CORS, never
 * cached) and the customer page's under `/api/onboarding-pages` (the id is the capability).
 */
import { Hono } from "hono";
import type { AppEnv } from "../app-env";
import { methodNotAllowed } from "../http/method-not-allowed";
import { cancelOnboarding, claimAuthorization, createOnboarding, onboardingEvents, pairPayout, readCustomerView, readOnboarding } from "./handlers";
import { hostAuth } from "./host-auth";

/** `/api/onboardings…`: create, read, cancel and the events log, for the host's servers. */
export function hostRoutes(): Hono<AppEnv> {
  return new Hono<AppEnv>()
    .use(hostAuth())
    .post("/", createOnboarding)
    .get("/:id", readOnboarding)
    .post("/:id/cancel", cancelOnboarding)
    .get("/:id/events", onboardingEvents)
    .all("/", methodNotAllowed("POST"))
    .all("/:id", methodNotAllowed("GET, HEAD"))
    .all("/:id/cancel", methodNotAllowed("POST"))
    .all("/:id/events", methodNotAllowed("GET, HEAD"));
}

/** `/api/onboarding-pages/:id…`: what the customer's page reads and reports. */
export function customerRoutes(): Hono<AppEnv> {
  return new Hono<AppEnv>()
    .get("/:id", readCustomerView)
    .post("/:id/payout", pairPayout)
    .post("/:id/authorization", claimAuthorization)
    .all("/:id", methodNotAllowed("GET, HEAD"))
    .all("/:id/payout", methodNotAllowed("POST"))
    .all("/:id/authorization", methodNotAllowed("POST"));
}

/**
 * The host API's routes the dashboard added, in the OpenAPI document (src/openapi/document.ts):
 * resending one event and the overview's figures. Both take a bearer key or a dashboard session.
 */
import type { OpenApiParts } from "../onboardings/openapi";

type Json = Record<string, unknown>;

const noStore = { "Cache-Control": { schema: { type: "string", const: "no-store" } } };
const pathParam = (name: string, pattern: string, description: string) => ({
  name,
  in: "path",
  required: true,
  schema: { type: "string", pattern },
  description,
});

/** `POST /api/onboardings/{id}/events/{event}/resend` and `GET /api/overview`. */
export function dashboardPaths({ errorAnswer }: Pick<OpenApiParts, "errorAnswer">): Record<string, Json> {
  const security = [{ hostKey: [] }];
  const refusals = {
    "401": errorAnswer("No key and no dashboard session, a wrong key, or a session that ended (SESSION_INVALID)"),
    "503": errorAnswer("HOST_API_KEYS is not set on this deployment (HOST_API_NOT_CONFIGURED)"),
  };
  return {
    "/api/onboardings/{id}/events/{event}/resend": {
      post: {
        tags: ["onboardings"],
        operationId: "resendEvent",
        summary: "Send one event again, with its same webhook-id",
        description:
          "As Stripe's Resend: the event (delivered or given up before) is owed again from now, in its place in " +
          "its onboarding's order; every earlier attempt stays in its log.",
        security,
        parameters: [
          pathParam("id", "^ob_[0-9a-f]{32}$", "Onboarding id: ob_ and 32 lowercase hex characters"),
          pathParam("event", "^msg_[0-9a-f]{32}$", "The event's id (its webhook-id)"),
        ],
        responses: {
          "200": { description: "The events log, the event owed again", headers: noStore },
          "400": errorAnswer("A malformed id (INVALID_ONBOARDING_ID, INVALID_EVENT_ID)"),
          "403": errorAnswer("A dashboard session's change from a page of another origin (CROSS_ORIGIN)"),
          "404": errorAnswer("No such onboarding, or no such event of it (EVENT_NOT_FOUND)"),
          "409": errorAnswer("No webhook is configured on this deployment (WEBHOOK_NOT_CONFIGURED)"),
          ...refusals,
        },
      },
    },
    "/api/overview": {
      get: {
        tags: ["onboardings"],
        operationId: "overview",
        summary: "The dashboard's figures: onboardings per day by status, the median time to applied",
        description:
          "Onboardings created per day over the last 30 days (since, a UTC date) by their status now, the median " +
          "seconds from created to applied of those applied, and how many events were given up; each read " +
          "from the D1 index through an index of its own.",
        security,
        responses: {
          "200": {
            description: "since, per_day [{day, status, n}], median_seconds_to_applied, applied_count, given_up_events",
            headers: noStore,
          },
          "503": errorAnswer("The index has no tables on this deployment (INDEX_NOT_READY), or HOST_API_KEYS is unset"),
          "401": refusals["401"],
        },
      },
    },
  };
}

/**
 * The host API's routes the dashboard added, in the OpenAPI document (src/openapi/document.ts):
 * resending one event, the overview's figures and the gateway's nodes. Each takes a bearer key or a
 * dashboard session.
 */
import { idParam, noStore, type Json, type OpenApiParts } from "../onboardings/http/openapi-parts";

const eventParam = {
  name: "event",
  in: "path",
  required: true,
  schema: { type: "string", pattern: "^msg_[0-9a-f]{32}$" },
  description: "The event's id (its webhook-id)",
};

/** `POST /api/onboardings/{id}/events/{event}/resend`, `GET /api/overview` and `GET /api/gateway`. */
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
        parameters: [idParam, eventParam],
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
    "/api/gateway": {
      get: {
        tags: ["onboardings"],
        operationId: "gatewayNodes",
        summary: "The gateway's nodes: height, lag, latency, errors, and which are avoided and why",
        description:
          "Per face (rest: UPSTREAM_URLS, rpc: RPC_UPSTREAM_URLS) and node in configured order: url, height " +
          "(reported within the last minute), behind (blocks behind the best node), latency_ms {p50, p99} of its " +
          "recent answers (a hang counts as slow), errors_last_minute, state (serving, benched or behind), reason " +
          "and until. With served_height, the highest latest-state height this isolate served. This isolate's " +
          "view, merged with the shields' when the shield tier is on (docs/GATEWAY.md).",
        security,
        responses: {
          "200": { description: "at, served_height, faces {rest: [Node], rpc: [Node]}", headers: noStore },
          ...refusals,
        },
      },
    },
  };
}

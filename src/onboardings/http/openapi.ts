/** The onboarding endpoints in the OpenAPI document (src/openapi/document.ts), from the schemas their handlers use. */
import type * as z from "zod/mini";
import type { Config } from "../../config";
import { onboardingFeedEventSchema, onboardingViewSchema } from "../../protocol/index";
import {
  onboardingCustomerViewSchema,
  onboardingEventsLogSchema,
  pageSchema,
  webhookRetrySchema,
} from "../../protocol/onboarding-answers";
import {
  createOnboardingSchema,
  eventListSchema,
  ONBOARDING_CREATE_BODY_LIMIT,
  onboardingListSchema,
  PAGE_LIMIT_DEFAULT,
  PAGE_LIMIT_MAX,
} from "./schemas";

import { idParam, json, noStore, type Json, type OpenApiParts } from "./openapi-parts";
import { customerPagePaths } from "./openapi-page";

/** Paths of the host API and of the customer page's endpoints. */
export function onboardingPaths(config: Config, parts: OpenApiParts): Record<string, Json> {
  const { schema, errorAnswer } = parts;
  const security = [{ hostKey: [] }];
  const hostRefusals = {
    "401": errorAnswer(
      "No key, a wrong key, or a key anywhere but the Authorization header (WWW-Authenticate: Bearer)",
    ),
    "503": errorAnswer("HOST_API_KEYS is not set on this deployment (HOST_API_NOT_CONFIGURED)"),
  };
  const the = (description: string) => ({
    description,
    headers: noStore,
    content: json({ $ref: "#/components/schemas/Onboarding" }),
  });
  /** A route's query parameters, from the zod schema its validation uses, each with what it means. */
  const queryParameters = <S extends Record<string, z.ZodMiniType>>(
    object: z.ZodMiniObject<S>,
    descriptions: Record<keyof S, string>,
  ) =>
    Object.entries(object.shape).map(([name, value]) => ({
      name,
      in: "query",
      required: false,
      schema: schema(value, "input"),
      description: descriptions[name],
    }));
  const limit = `Items per page, 1 to ${PAGE_LIMIT_MAX} (default ${PAGE_LIMIT_DEFAULT})`;
  const page = (name: string, description: string) => ({
    description,
    headers: noStore,
    content: json({ $ref: `#/components/schemas/${name}` }),
  });
  const queryRefusals = (cursor: string) =>
    errorAnswer(
      `A parameter the route does not take (UNKNOWN_QUERY_PARAMETER), one given twice (DUPLICATE_QUERY_PARAMETER), ` +
        `a value that breaks its rule (INVALID_QUERY_PARAMETER), or a ${cursor} the index does not hold ` +
        `(CURSOR_NOT_FOUND); metadata.parameter names it`,
    );
  /** The list and the feed read the index: a deployment that never applied its migrations answers 503 too. */
  const indexRefusals = {
    ...hostRefusals,
    "503": errorAnswer(
      "HOST_API_KEYS is not set on this deployment (HOST_API_NOT_CONFIGURED), or the onboarding index's tables are " +
        "missing: its migrations were not applied (INDEX_NOT_READY; the message names `wrangler d1 migrations apply`)",
    ),
  };
  return {
    "/api/onboardings": {
      get: {
        tags: ["onboardings"],
        operationId: "listOnboardings",
        summary: "List onboardings, newest first",
        description:
          "From the index every onboarding writes after each change (it may trail an onboarding by about a second). " +
          "Newest first (created_at, then id, descending); each filter is an exact match, and all given must " +
          "hold. Page with starting_after: the last id of the previous page.",
        security,
        parameters: queryParameters(onboardingListSchema(config), {
          status: "Only onboardings in this status",
          reference: "Only onboardings created with this reference",
          operator: "Only onboardings of this operator address",
          payout: "Only onboardings whose paired payout is this address",
          created_gte: "Only onboardings created at or after this time (RFC 3339, or a date: its midnight UTC)",
          created_lt: "Only onboardings created before this time",
          limit,
          starting_after: "The last id of the previous page: this page holds the onboardings after it",
          label: "Only onboardings with this label (exact)",
          q:
            "Search by any of an onboarding's ids in one request: its ob_ id or reference (exact), or the " +
            "beginning of its label, operator or payout address (case-sensitive; the whole value matches too)",
        }),
        responses: {
          "200": page("OnboardingList", "A page of onboardings, as GET /api/onboardings/{id} answers each"),
          "400": queryRefusals("starting_after"),
          ...indexRefusals,
        },
      },
      post: {
        tags: ["onboardings"],
        operationId: "createOnboarding",
        summary: "Create an onboarding for a customer",
        description:
          `Server to server. Idempotency-Key (1 to 255 printable characters): the same key and body ` +
          `within 24 hours answers the same onboarding (200), another body 409. Expires ` +
          `${config.onboardingTtlSeconds} s after creation unless applied.`,
        security,
        parameters: [{ name: "Idempotency-Key", in: "header", required: false, schema: { type: "string" } }],
        requestBody: { required: true, content: json(schema(createOnboardingSchema(config), "input")) },
        responses: {
          "201": the("The new onboarding (Location: its url)"),
          "200": the("The onboarding this Idempotency-Key created"),
          "400": errorAnswer("Bad operator address, bad return_url, unknown field"),
          "409": errorAnswer("The Idempotency-Key was used with another body (IDEMPOTENCY_KEY_REUSED)"),
          "413": errorAnswer(`Body over ${ONBOARDING_CREATE_BODY_LIMIT} bytes`),
          "415": errorAnswer("Not application/json"),
          ...hostRefusals,
        },
      },
    },
    "/api/onboardings/{id}": {
      get: {
        tags: ["onboardings"],
        operationId: "readOnboarding",
        summary: "Read an onboarding",
        security,
        parameters: [idParam],
        responses: { "200": the("The onboarding"), "404": errorAnswer("No such onboarding"), ...hostRefusals },
      },
    },
    "/api/onboardings/{id}/cancel": {
      post: {
        tags: ["onboardings"],
        operationId: "cancelOnboarding",
        summary: "Cancel an onboarding (any state before applied)",
        security,
        parameters: [idParam],
        responses: {
          "200": the("The onboarding, now cancelled"),
          "404": errorAnswer("No such onboarding"),
          "409": errorAnswer("Already applied"),
          "410": errorAnswer("Already expired"),
          ...hostRefusals,
        },
      },
    },
    "/api/onboardings/{id}/events": {
      get: {
        tags: ["onboardings"],
        operationId: "onboardingEvents",
        summary: "The events log: every event and every delivery attempt",
        security,
        parameters: [idParam],
        responses: {
          "200": {
            description:
              "Every event (id: its webhook-id) with every attempt to deliver it (the receiver's status, or the error)",
            headers: noStore,
            content: json({ $ref: "#/components/schemas/OnboardingEventsLog" }),
          },
          "404": errorAnswer("No such onboarding"),
          ...hostRefusals,
        },
      },
    },
    "/api/events": {
      get: {
        tags: ["onboardings"],
        operationId: "listEvents",
        summary: "Every onboarding's events, oldest first: the feed to catch up from",
        description:
          "Events in one order, the order the index first held them (seq: an event written later is always after " +
          "the ones a host has seen). after: the seq of the " +
          "last event the host has seen, which always reads on (even " +
          "once that event's onboarding is deleted), or its id " +
          "(its webhook-id), kept for 90 days after its deletion; " +
          "so a host that missed webhooks reads on from there. " +
          "data is the onboarding as the event's webhook carried it.",
        security,
        parameters: queryParameters(eventListSchema, {
          after: "The seq (or the id) of the last event seen: this page holds the events after it",
          type: "Only events of this type",
          onboarding: "Only the events of this onboarding",
          limit,
        }),
        responses: {
          "200": page("EventFeed", "A page of events"),
          "400": queryRefusals("after"),
          ...indexRefusals,
        },
      },
    },
    "/api/webhook/retry": {
      post: {
        tags: ["onboardings"],
        operationId: "retryWebhook",
        summary: "Have a failing webhook endpoint tried now",
        description:
          "For a host that fixed its receiver: the lane of HOST_WEBHOOK_URL tries it at once " +
          "instead of at its next probe (up to 5 minutes away in a long outage); the first answer releases " +
          "every held event. failing false: the endpoint is not failing, nothing to try. Every event " +
          "given up (3 days after its first failed attempt) is queued to be sent again; resent counts them.",
        security,
        responses: {
          "202": {
            description:
              "Whether the endpoint is failing, when it is tried (now, " +
              "when it is), and how many given-up events are sent again",
            headers: noStore,
            content: json({ $ref: "#/components/schemas/WebhookRetry" }),
          },
          "400": errorAnswer("A query parameter (UNKNOWN_QUERY_PARAMETER)"),
          "409": errorAnswer(
            "No webhook is configured on this deployment (WEBHOOK_NOT_CONFIGURED, metadata.variable HOST_WEBHOOK_URL)",
          ),
          ...hostRefusals,
        },
      },
    },
    ...customerPagePaths(config, parts),
  };
}

/** Components the onboarding paths refer to: each answer's shape from its zod schema (src/protocol/onboarding.ts). */
export function onboardingComponents({ schema }: Pick<OpenApiParts, "schema">) {
  return {
    schemas: {
      Onboarding: {
        ...schema(onboardingViewSchema),
        description:
          "status: open → connected (a payout is paired) → authorized (the chain lists the operator for the payout, " +
          "or the payout is the operator) → applied (the node record pays the payout); expired and cancelled end " +
          "it. commands appear from authorized on; problem says why the service ended it early. url is the " +
          "customer's page.",
      },
      OnboardingCustomerView: schema(onboardingCustomerViewSchema),
      OnboardingEventsLog: schema(onboardingEventsLogSchema),
      OnboardingList: schema(pageSchema(onboardingViewSchema)),
      EventFeed: schema(pageSchema(onboardingFeedEventSchema)),
      WebhookRetry: schema(webhookRetrySchema),
    },
    securitySchemes: { hostKey: { type: "http", scheme: "bearer", description: "One of HOST_API_KEYS" } },
  };
}

/**
 * What each onboarding request must carry, decided in middleware before its handler runs: the
 * path's onboarding id, a host's create as the onboarding to store and its idempotency key, what
 * the customer's page reports. A handler reads them with `c.req.valid(…)` and never checks them again.
 */
import type { Context } from "hono";
import { validator } from "hono/validator";
import * as z from "zod/mini";
import type { AppEnv } from "../../app-env";
import type { Config } from "../../config";
import { LOCAL_PROFILE } from "../../config/profiles";
import { duplicateQueryParameter, invalidArgument, unknownQueryParameter } from "../../errors";
import { jsonBody } from "../../http/json-body";
import { parseOrRefuse } from "../../http/validate";
import { describeFirstIssue, mintOnboardingId } from "../../protocol/index";
import type { NewOnboarding } from "../machine";
import {
  authorizationClaimSchema,
  checkReturnUrl,
  createOnboardingSchema,
  eventListSchema,
  noQuerySchema,
  ONBOARDING_CREATE_BODY_LIMIT,
  onboardingListSchema,
  onboardingPathSchema,
  PAGE_BODY_LIMIT,
  parseIdempotencyKey,
  payoutSchema,
} from "./schemas";

/** The onboarding id of the path, as `c.req.valid("param").id`; 400 `INVALID_ONBOARDING_ID` otherwise. */
export const onboardingIdParam = validator("param", (params) =>
  parseOrRefuse(onboardingPathSchema, params, "INVALID_ONBOARDING_ID"),
);

/**
 * A host's create, as the onboarding to store (with a fresh id) and the body it was made from (for `Idempotency-Key`).
 */
export const newOnboardingBody = jsonBody(ONBOARDING_CREATE_BODY_LIMIT, (body, c: Context<AppEnv>) => {
  const config = c.get("config");
  const fields = parseOrRefuse(createOnboardingSchema(config), body);
  const onboarding: NewOnboarding = {
    id: mintOnboardingId(),
    operator: fields.operator,
    label: fields.label ?? "",
    reference: fields.reference ?? null,
    origin: new URL(c.req.url).origin,
    return_url:
      fields.return_url === undefined ? null : checkReturnUrl(fields.return_url, config.profile === LOCAL_PROFILE),
  };
  return { onboarding, fields };
});

/**
 * A create's `Idempotency-Key`, as `c.req.valid("header").idempotencyKey` (null without one); 400
 * `INVALID_IDEMPOTENCY_KEY` otherwise.
 */
export const idempotencyKeyHeader = validator("header", (headers) => ({
  idempotencyKey: parseIdempotencyKey(headers["idempotency-key"]),
}));

/** What the customer's wallet paired: a relayed pairing session, or the wallet app's answer. */
export const payoutBody = jsonBody(PAGE_BODY_LIMIT, (body, c: Context<AppEnv>) => {
  const paired = parseOrRefuse(payoutSchema(c.get("config")), body);
  return "session_id" in paired ? { sessionId: paired.session_id } : { address: paired.address, source: paired.source };
});

/** The authorization's transaction hash the wallet app returned. */
export const authorizationClaimBody = jsonBody(
  PAGE_BODY_LIMIT,
  (body) => parseOrRefuse(authorizationClaimSchema, body).txhash,
);

/**
 * A host route's query string as `c.req.valid("query")`, parsed by `schema`: a parameter the
 * route does not take, one given twice, or a value that breaks its rule is a 400 naming the
 * parameter (and the rule, or what the route takes).
 */
function hostQuery<S extends z.ZodMiniObject>(schemaFor: (config: Config) => S) {
  return validator("query", (query, c: Context<AppEnv>): z.output<S> => {
    const schema = schemaFor(c.get("config"));
    const takes = Object.keys(schema.shape);
    for (const [name, value] of Object.entries(query)) {
      const parameter = name.slice(0, 40);
      if (!takes.includes(name)) {
        throw unknownQueryParameter(parameter, "this route", takes, { parameter });
      }
      if (Array.isArray(value)) throw duplicateQueryParameter(name, parameter);
    }
    const result = z.safeParse(schema, query);
    if (result.success) return result.data;
    const { field, message } = describeFirstIssue(result.error);
    throw invalidArgument("INVALID_QUERY_PARAMETER", message, { parameter: field });
  });
}

/** `GET /api/onboardings`'s filters, limit and cursor. */
export const onboardingListQuery = hostQuery(onboardingListSchema);

/** `GET /api/events`'s cursor, filters and limit. */
export const eventListQuery = hostQuery(() => eventListSchema);

/** The host routes that take no query parameters. */
export const noQuery = hostQuery(() => noQuerySchema);

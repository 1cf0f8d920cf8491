/** Validation of the host API and the customer page's requests; handlers receive parsed values. */
import * as z from "zod/mini";
import type { Config } from "../../config";
import { invalidArgument } from "../../errors";
import { isHttpsOrLocalLoopback } from "../../http/loopback";
import {
  accountAddressSchema,
  canonicalTxHash,
  freeText,
  ONBOARDING_EVENT_TYPES,
  ONBOARDING_ID_PATTERN,
  onboardingStatusSchema,
} from "../../protocol/index";
import { sessionIdSchema } from "../../sessions/schemas";

/** An onboarding create is a few hundred bytes; the page's payout and authorization bodies fewer. */
export const ONBOARDING_CREATE_BODY_LIMIT = 4096;
export const PAGE_BODY_LIMIT = 1024;

/** An address as a host or a page may spell it (surrounding spaces, uppercase bech32), in the chain's spelling. */
const address = (prefix: string) =>
  z.pipe(
    z.pipe(
      z.string(),
      z.transform((s) => s.trim().toLowerCase()),
    ),
    accountAddressSchema(prefix),
  );

/** `POST /api/onboardings`. */
export function createOnboardingSchema(config: Config) {
  return z.strictObject({
    operator: address(config.bech32Prefix),
    label: z.optional(freeText(64)),
    reference: z.optional(freeText(128).check(z.minLength(1))),
    return_url: z.optional(z.string().check(z.maxLength(2048))),
  });
}

/** `POST /api/onboarding-pages/:id/payout`: a relayed pairing session, or the wallet app's answer. */
export function payoutSchema(config: Config) {
  return z.union([
    z.strictObject({ session_id: sessionIdSchema }),
    z.strictObject({ source: z.literal("in_app"), address: address(config.bech32Prefix) }),
  ]);
}

/** `POST /api/onboarding-pages/:id/authorization`. */
export const authorizationClaimSchema = z.strictObject({
  txhash: z.pipe(
    z.string(),
    z.transform((value, ctx) => {
      const hash = canonicalTxHash(value);
      if (hash === null)
        ctx.issues.push({ code: "custom", message: "must be a transaction hash (64 hex characters)", input: value });
      return hash ?? "";
    }),
  ),
});

/** The path of an onboarding's endpoints: its id. */
export const onboardingPathSchema = z.object({
  id: z.string().check(z.regex(ONBOARDING_ID_PATTERN, "must be ob_ followed by 32 lowercase hex characters")),
});

/** The path of one event of an onboarding: the onboarding's id and the event's (its `webhook-id`). */
export const eventPathSchema = z.object({
  id: onboardingPathSchema.shape.id,
  event: z.string().check(z.regex(/^msg_[0-9a-f]{32}$/, "must be msg_ followed by 32 lowercase hex characters")),
});

/** `return_url`: https (plain http only on loopback in the local profile), no credentials. */
export function checkReturnUrl(value: string, localProfile: boolean): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidArgument("INVALID_RETURN_URL", "return_url is not an absolute URL", { field: "return_url" });
  }
  if (!isHttpsOrLocalLoopback(url, localProfile)) {
    throw invalidArgument("INVALID_RETURN_URL", "return_url must use https", { field: "return_url" });
  }
  if (url.username || url.password)
    throw invalidArgument("INVALID_RETURN_URL", "return_url must not carry credentials", { field: "return_url" });
  return url.href;
}

/** `Idempotency-Key`: 1 to 255 printable ASCII characters. */
export function parseIdempotencyKey(value: string | undefined): string | null {
  if (value === undefined) return null;
  if (!/^[\x21-\x7e]{1,255}$/.test(value)) {
    throw invalidArgument(
      "INVALID_IDEMPOTENCY_KEY",
      "Idempotency-Key must be 1 to 255 printable ASCII characters without spaces",
    );
  }
  return value;
}

/** The most items one page of the list or the feed holds, and how many it holds unless asked. */
export const PAGE_LIMIT_MAX = 100;
export const PAGE_LIMIT_DEFAULT = 20;

/** `limit`: a whole number from 1 to 100. */
const pageLimit = z.pipe(
  z.string().check(z.regex(/^[1-9][0-9]{0,2}$/, `must be a whole number from 1 to ${PAGE_LIMIT_MAX}`)),
  z.transform(Number).check(z.lte(PAGE_LIMIT_MAX, `must be a whole number from 1 to ${PAGE_LIMIT_MAX}`)),
);

/** An RFC 3339 time (a date alone is its midnight UTC), in the index's own spelling: toISOString's. */
const instant = z.pipe(
  z
    .string()
    .check(
      z.regex(
        /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/,
        "must be an RFC 3339 time, e.g. 2026-11-25T12:00:00Z, or a date",
      ),
    ),
  z.transform((value, ctx) => {
    const at = Date.parse(value);
    if (Number.isNaN(at)) ctx.issues.push({ code: "custom", message: "is not a real time", input: value });
    return Number.isNaN(at) ? "" : new Date(at).toISOString();
  }),
);

const onboardingId = z
  .string()
  .check(z.regex(ONBOARDING_ID_PATTERN, "must be an onboarding id: ob_ followed by 32 lowercase hex characters"));

/**
 * `GET /api/onboardings`: filters (each an exact match; created_gte ≤ created_at < created_lt), `limit`, and the
 * cursor.
 */
export function onboardingListSchema(config: Config) {
  return z.strictObject({
    status: z.optional(
      z.enum(onboardingStatusSchema.options, `must be one of ${onboardingStatusSchema.options.join(", ")}`),
    ),
    reference: z.optional(freeText(128).check(z.minLength(1))),
    operator: z.optional(address(config.bech32Prefix)),
    payout: z.optional(address(config.bech32Prefix)),
    created_gte: z.optional(instant),
    created_lt: z.optional(instant),
    limit: z.optional(pageLimit),
    /** The last id of the previous page: this page begins after it. */
    starting_after: z.optional(onboardingId),
    /** The dashboard's search: an exact label (last, so the parameters named before keep their order). */
    label: z.optional(freeText(64).check(z.minLength(1))),
    /** One search over every id an onboarding has (store.ts `SEARCH_CLAUSE`): what a support desk pastes. */
    q: z.optional(freeText(128).check(z.minLength(1))),
  });
}
export type OnboardingListQuery = z.output<ReturnType<typeof onboardingListSchema>>;

/** `after`: the last event's `seq` (the feed's own cursor, a whole number), or its id (msg_…, the webhook-id). */
const eventPlace = z.pipe(
  z
    .string()
    .check(
      z.regex(
        /^(msg_[0-9A-Za-z]{1,64}|[0-9]{1,15})$/,
        "must be the seq of an event (a whole number) or an event id (msg_…, the webhook-id)",
      ),
    ),
  z.transform((value): string | number => (value.startsWith("msg_") ? value : Number(value))),
);

/** `GET /api/events`: the events after the last one a host saw, of one type or one onboarding. */
export const eventListSchema = z.strictObject({
  after: z.optional(eventPlace),
  type: z.optional(z.enum(ONBOARDING_EVENT_TYPES, `must be one of ${ONBOARDING_EVENT_TYPES.join(", ")}`)),
  onboarding: z.optional(onboardingId),
  limit: z.optional(pageLimit),
});
export type EventListQuery = z.output<typeof eventListSchema>;

/** Host routes that take no query parameters. */
export const noQuerySchema = z.strictObject({});

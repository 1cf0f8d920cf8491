/**
 * An onboarding as the host and the customer's page see it (docs/HOSTS.md): a host's request that
 * one customer's payout be paired, authorized on chain and applied by the host's node, each step
 * verified on the chain by the service itself. Each answer's shape is one zod schema here, from
 * which both its TypeScript type and its OpenAPI schema (src/onboardings/openapi.ts) come.
 */
import * as z from "zod/mini";
import { ONBOARDING_ID_PATTERN } from "./ids.ts";

/**
 * `open` → `connected` (a payout is paired) → `authorized` (the chain lists the operator for the
 * payout, or none is needed) → `applied` (the node record pays the payout); `expired` and
 * `cancelled` end it early.
 */
export const onboardingStatusSchema = z.enum(["open", "connected", "authorized", "applied", "expired", "cancelled"]);
export type OnboardingStatus = z.output<typeof onboardingStatusSchema>;

/** Where the payout came from: the wallet's relayed confirm of a pairing session, or the wallet app's bridge. */
const payoutSourceSchema = z.enum(["relay", "in_app"]);
export type PayoutSource = z.output<typeof payoutSourceSchema>;

/** The statuses after which nothing changes any more. */
export function isOnboardingEnded(status: OnboardingStatus): boolean {
  return status === "applied" || status === "expired" || status === "cancelled";
}

/** The event types a host receives, one per status change after `open`. */
export type OnboardingEventType = `onboarding.${Exclude<OnboardingStatus, "open">}`;
export const ONBOARDING_EVENT_TYPES = onboardingStatusSchema.options
  .filter((s) => s !== "open")
  .map((s) => `onboarding.${s}`) as OnboardingEventType[];

const isoTime = z.iso.datetime();
const height = z.number().check(z.int());
const nullableText = z.nullable(z.string());

const onboardingShape = {
  id: z.string().check(z.regex(ONBOARDING_ID_PATTERN)),
  status: onboardingStatusSchema,
  operator: z.string(),
  label: z.string(),
  reference: nullableText,
  /** The customer's page for this onboarding. */
  url: z.url(),
  return_url: z.nullable(z.url()),
  payout: nullableText,
  payout_source: z.nullable(payoutSourceSchema),
  /** `required` is null until a payout is paired (it is false when the payout is the operator itself). */
  authorization: z.object({
    required: z.nullable(z.boolean()),
    height: z.optional(height),
    txhash: z.optional(z.string()),
  }),
  node: z.object({ payout_recipient: z.optional(z.string()), height: z.optional(height) }),
  /** From `authorized` on: what the host's node runs to apply the payout. */
  commands: z.optional(z.object({ update_node: z.string(), payout_recipient_line: z.string() })),
  /** Why the onboarding ended early, when the service ended it. */
  problem: z.optional(z.object({ reason: z.string(), message: z.string() })),
  created_at: isoTime,
  updated_at: isoTime,
  expires_at: isoTime,
};

/** The onboarding as the host API answers it and every event carries it. */
export const onboardingViewSchema = z.object(onboardingShape);
export type OnboardingView = z.output<typeof onboardingViewSchema>;

/** What the customer's page sees: no host reference, no commands; `host` names where `return_url` leads. */
const { reference: _reference, commands: _commands, ...customerShape } = onboardingShape;
export const onboardingCustomerViewSchema = z.object({ ...customerShape, host: nullableText });
export type OnboardingCustomerView = z.output<typeof onboardingCustomerViewSchema>;

const attemptTiming = { at: isoTime, ms: z.number() };

/** The host API's events log: every event of the onboarding and every attempt to deliver it. */
export const onboardingEventsLogSchema = z.object({
  events: z.array(
    z.object({
      /** The event's `webhook-id`, the same on every attempt. */
      id: z.string(),
      type: z.enum(ONBOARDING_EVENT_TYPES as [OnboardingEventType, ...OnboardingEventType[]]),
      created_at: isoTime,
      delivered_at: z.nullable(isoTime),
      /** Set once it is given up: still undelivered 3 days after its first failed attempt (a retry sends it again). */
      failed_at: z.nullable(isoTime),
      /** When it is really tried next; null while it waits (see waiting_for), or once delivered or given up. */
      next_attempt_at: z.nullable(isoTime),
      /**
       * What a held-back event waits for: the endpoint failing (since when, its last error), or the event before it.
       */
      waiting_for: z.nullable(
        z.union([
          z.object({ endpoint_failing_since: isoTime, endpoint_last_error: z.nullable(z.string()) }),
          z.object({ event: z.string() }),
        ]),
      ),
      /** The receiver's HTTP status, or why there was none. */
      attempts: z.array(
        z.union([
          z.object({ ...attemptTiming, status: z.number().check(z.int()) }),
          z.object({ ...attemptTiming, error: z.string() }),
        ]),
      ),
    }),
  ),
});
export type OnboardingEventsLog = z.output<typeof onboardingEventsLogSchema>;

/**
 * An event of the host API's feed (`GET /api/events`): its `data` is the onboarding as the event's webhook carried it.
 */
export const onboardingFeedEventSchema = z.object({
  /** The event's place in the feed's one order: `after=<seq>` reads on from it, whatever has been deleted since. */
  seq: z.number().check(z.int(), z.gte(1)),
  /** The event's `webhook-id`. */
  id: z.string(),
  type: z.enum(ONBOARDING_EVENT_TYPES as [OnboardingEventType, ...OnboardingEventType[]]),
  created_at: isoTime,
  onboarding_id: z.string().check(z.regex(ONBOARDING_ID_PATTERN)),
  /** Set once its delivery to the webhook was given up (3 days after its first failed attempt). */
  failed_at: z.nullable(isoTime),
  data: onboardingViewSchema,
});
export type OnboardingFeedEvent = z.output<typeof onboardingFeedEventSchema>;

/**
 * `POST /api/webhook/retry`: whether the lane of the webhook URL is failing, when it tries the
 * receiver next (now, when it is), and how many given-up events were queued to be sent again.
 */
export const webhookRetrySchema = z.object({
  failing: z.boolean(),
  next_attempt_at: z.nullable(isoTime),
  resent: z.number().check(z.int()),
});

/** A page of the host API's list or feed: `has_more` is true while a next page holds more. */
export const pageSchema = <T extends z.ZodMiniType>(item: T) =>
  z.object({ data: z.array(item), has_more: z.boolean() });

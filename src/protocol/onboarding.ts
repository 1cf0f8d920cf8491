/**
 * An onboarding as the host and the customer's page see it (docs/HOSTS.md): a host's request that
 * one customer's payout be paired, authorized on chain and applied by the host's node, each step
 * verified on the chain by the service itself. Each answer's shape is one zod schema, from which
 * both its TypeScript type and its OpenAPI schema (src/onboardings/http/openapi.ts) come: here the ones
 * the Worker also parses with, in onboarding-answers.ts those only the OpenAPI document needs.
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

export const isoTime = z.iso.datetime();
const height = z.number().check(z.int());
export const nullableText = z.nullable(z.string());

export const onboardingShape = {
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

/**
 * The onboarding answers whose schemas only the OpenAPI document (src/onboardings/http/openapi.ts, a
 * build-time asset) needs: the Worker writes these shapes but never parses them, so their zod
 * schemas live apart from onboarding.ts and stay out of the Worker. Their types come from them.
 */
import * as z from "zod/mini";
import {
  isoTime,
  nullableText,
  ONBOARDING_EVENT_TYPES,
  type OnboardingEventType,
  onboardingShape,
} from "./onboarding.ts";

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

/**
 * The customer's view of a host's onboarding (`GET /api/onboarding-pages/:id`): the onboarding
 * without the host's reference and commands, plus `host`, the hostname of its return URL.
 */
import * as z from "zod/mini";
import {
  ONBOARDING_ID_PATTERN,
  onboardingStatusSchema as statusSchema,
  type OnboardingStatus,
} from "../../src/protocol/index.ts";

const height = z.optional(z.nullable(z.number()));

/** The fields the page reads; any other field is left alone. */
const customerViewSchema = z.object({
  id: z.string().check(z.regex(ONBOARDING_ID_PATTERN)),
  status: statusSchema,
  operator: z.string(),
  label: z.string(),
  payout: z.nullable(z.string()),
  payout_source: z.optional(z.nullable(z.string())),
  return_url: z.optional(z.nullable(z.string())),
  host: z.optional(z.nullable(z.string())),
  authorization: z.object({ required: z.nullable(z.boolean()), height }),
  node: z.object({ payout_recipient: z.optional(z.nullable(z.string())), height }),
  problem: z.optional(z.nullable(z.object({ reason: z.string(), message: z.string() }))),
});
export type CustomerView = z.output<typeof customerViewSchema>;

/** The view, or null for anything else. */
export function readCustomerView(value: unknown): CustomerView | null {
  const parsed = z.safeParse(customerViewSchema, value);
  return parsed.success ? parsed.data : null;
}

/** True once the chain lists the authorization (or none was needed). */
export function isAuthorized(status: OnboardingStatus): boolean {
  return status === "authorized" || status === "applied";
}

/** The onboarding's id from the page's query string, or null when the link names none. */
export function onboardingIdParam(search: string): string | null {
  return new URLSearchParams(search).get("onboarding");
}

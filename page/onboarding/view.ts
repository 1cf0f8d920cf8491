/**
 * The customer's view of a host's onboarding (`GET /api/onboarding-pages/:id`): the onboarding
 * without the host's reference and commands, plus `host`, the hostname of its return URL.
 */
import * as z from "zod/mini";

/** The onboarding's id in the page's link: `ob_` and 32 lowercase hex digits. */
export const ONBOARDING_ID_PATTERN = /^ob_[0-9a-f]{32}$/;

const statusSchema = z.enum(["open", "connected", "authorized", "applied", "expired", "cancelled"]);
export type OnboardingStatus = z.output<typeof statusSchema>;

const height = z.optional(z.nullable(z.number()));

/** The fields the page reads; any other field is left alone. */
export const onboardingViewSchema = z.object({
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
export type OnboardingView = z.output<typeof onboardingViewSchema>;

/** The view, or null for anything else. */
export function readOnboardingView(value: unknown): OnboardingView | null {
  const parsed = z.safeParse(onboardingViewSchema, value);
  return parsed.success ? parsed.data : null;
}

/** True once nothing can change the onboarding again. */
export function hasEnded(status: OnboardingStatus): boolean {
  return status === "applied" || status === "expired" || status === "cancelled";
}

/** True once the chain lists the authorization (or none was needed). */
export function isAuthorized(status: OnboardingStatus): boolean {
  return status === "authorized" || status === "applied";
}

/** The onboarding's id from the page's query string, or null when the link names none. */
export function onboardingIdParam(search: string): string | null {
  return new URLSearchParams(search).get("onboarding");
}

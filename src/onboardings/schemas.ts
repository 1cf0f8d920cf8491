/** Validation of the host API and the customer page's requests; handlers receive parsed values. */
import * as z from "zod/mini";
import type { Config } from "../config";
import { invalidArgument } from "../errors";
import { isHttpsOrLocalLoopback } from "../http/loopback";
import { accountAddressSchema, canonicalTxHash, NO_CONTROL_CHARS, ONBOARDING_ID_PATTERN } from "../protocol/index";
import { sessionIdSchema } from "../sessions/schemas";

/** An onboarding create is a few hundred bytes; the page's payout and authorization bodies fewer. */
export const ONBOARDING_CREATE_BODY_LIMIT = 4096;
export const PAGE_BODY_LIMIT = 1024;

const text = (max: number) => z.string().check(z.maxLength(max), z.regex(NO_CONTROL_CHARS, "must not contain control characters"));

/** An address as a host or a page may spell it (surrounding spaces, uppercase bech32), in the chain's spelling. */
const address = (prefix: string) => z.pipe(z.pipe(z.string(), z.transform((s) => s.trim().toLowerCase())), accountAddressSchema(prefix));

/** `POST /api/onboardings`. */
export function createOnboardingSchema(config: Config) {
  return z.strictObject({
    operator: address(config.bech32Prefix),
    label: z.optional(text(64)),
    reference: z.optional(text(128).check(z.minLength(1))),
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
      if (hash === null) ctx.issues.push({ code: "custom", message: "must be a transaction hash (64 hex characters)", input: value });
      return hash ?? "";
    }),
  ),
});

/** The path of an onboarding's endpoints: its id. */
export const onboardingPathSchema = z.object({
  id: z.string().check(z.regex(ONBOARDING_ID_PATTERN, "An onboarding id is ob_ followed by 32 lowercase hex characters")),
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
  if (url.username || url.password) throw invalidArgument("INVALID_RETURN_URL", "return_url must not carry credentials", { field: "return_url" });
  return url.href;
}

/** `Idempotency-Key`: 1 to 255 printable ASCII characters. */
export function parseIdempotencyKey(value: string | undefined): string | null {
  if (value === undefined) return null;
  if (!/^[\x21-\x7e]{1,255}$/.test(value)) {
    throw invalidArgument("INVALID_IDEMPOTENCY_KEY", "Idempotency-Key must be 1 to 255 printable ASCII characters without spaces");
  }
  return value;
}

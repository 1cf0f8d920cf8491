/**
 * `Idempotency-Key` for creates: the same key and body within 24 hours is the same onboarding; another body is a
 * conflict.
 */
import { GrpcCode, type ErrorSpec } from "../../errors";
import { toHex } from "../../protocol/hex";

/** How long a key is remembered. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000;

export const IDEMPOTENCY_CONFLICT: ErrorSpec = {
  status: 409,
  code: GrpcCode.ALREADY_EXISTS,
  reason: "IDEMPOTENCY_KEY_REUSED",
  message: "This Idempotency-Key was used within 24 hours with another body; use a new key for a new onboarding",
};

/** SHA-256 (hex) of the parsed body with its keys sorted: spacing and key order do not make another body. */
export async function canonicalBody(body: Record<string, unknown>): Promise<string> {
  const sorted = Object.fromEntries(Object.entries(body).sort(([a], [b]) => (a < b ? -1 : 1)));
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(JSON.stringify(sorted)));
  return toHex(digest);
}

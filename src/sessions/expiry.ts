/**
 * The life a create asks for: `expires_at` is what the QR promises the wallet, so the server keeps
 * it exactly or refuses it; it never keeps a shorter life than the payload says.
 */
import { invalidArgument } from "../errors";
import { CONNECT_TTL_MS } from "../protocol/index";

/**
 * The expiry (ms since the epoch) for a create at `now`: the requested ISO time, or five minutes
 * (the SDK's default) capped at `maxSeconds` when none is given. Refuses a time already past and
 * one later than `maxSeconds` from now, with the cap in the message and in the metadata
 * (`max_seconds`, and `latest_expires_at`, the latest time this server would accept now).
 */
export function sessionExpiry(requested: string | undefined, now: number, maxSeconds: number): number {
  const latest = now + maxSeconds * 1000;
  if (requested === undefined) return Math.min(now + CONNECT_TTL_MS, latest);
  const at = Date.parse(requested);
  if (at <= now)
    throw invalidArgument("EXPIRES_AT_IN_PAST", "expires_at must be in the future", { field: "expires_at" });
  if (at > latest) {
    throw invalidArgument("EXPIRES_AT_TOO_LATE", `expires_at may be at most ${maxSeconds} seconds from now`, {
      field: "expires_at",
      max_seconds: String(maxSeconds),
      latest_expires_at: new Date(latest).toISOString(),
    });
  }
  return at;
}

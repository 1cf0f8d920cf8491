/**
 * The attempts to deliver events, counted for the overview's deliveries per hour: one row per
 * attempt in D1 (migrations/0004_dashboard.sql), kept 7 days. Best effort: a write D1 refuses is
 * logged and dropped; the attempt itself stays in its event's log, the authority.
 */
import { errorText, log } from "../log";
import type { DeliveryAttempt } from "../onboardings/state";

/** How long an attempt's row is kept (the overview reads the last 48 hours). */
const KEEP_MS = 7 * 86_400_000;

/** Records one attempt at event `eventId`: when, and whether the receiver answered 2xx. */
export async function recordAttempt(db: D1Database, eventId: string, attempt: DeliveryAttempt): Promise<void> {
  const ok = "status" in attempt && attempt.status >= 200 && attempt.status < 300 ? 1 : 0;
  const oldest = new Date(Date.parse(attempt.at) - KEEP_MS).toISOString();
  try {
    await db.batch([
      db.prepare("INSERT INTO delivery_attempts (at, event_id, ok) VALUES (?, ?, ?)").bind(attempt.at, eventId, ok),
      db.prepare("DELETE FROM delivery_attempts WHERE at < ?").bind(oldest),
    ]);
  } catch (err) {
    log("warn", "delivery_attempt_not_recorded", { webhook_id: eventId, error: errorText(err) });
  }
}

/**
 * `GET /api/overview` (host API: a bearer key or a dashboard session): the dashboard's figures,
 * each from a D1 query that reads an index (migrations/0004_dashboard.sql), never a scan of
 * every row: onboardings per day over 30 days by status, the median time from created to
 * applied, how many events were given up, and delivery attempts per hour over 48 hours.
 */
import type { Context } from "hono";
import type { AppEnv } from "../app-env";
import { fromIndex } from "../onboardings/index/store";

const DAY_MS = 86_400_000;
/** Days the overview covers, today included. */
const OVERVIEW_DAYS = 30;

/**
 * The statements behind the overview, with the first day they cover.
 * @internal Exported for the query plans' test.
 */
export const OVERVIEW_SQL = {
  perDay:
    "SELECT substr(created_at, 1, 10) AS day, status, COUNT(*) AS n FROM onboardings " +
    "WHERE created_at >= ? GROUP BY day, status ORDER BY day",
  applied:
    "SELECT (julianday(updated_at) - julianday(created_at)) * 86400 AS seconds FROM onboardings " +
    "WHERE status = 'applied' AND created_at >= ? ORDER BY seconds",
  givenUp: "SELECT COUNT(*) AS n FROM events WHERE failed_at IS NOT NULL",
  perHour:
    "SELECT substr(at, 1, 13) AS hour, ok, COUNT(*) AS n FROM delivery_attempts " +
    "WHERE at >= ? GROUP BY hour, ok ORDER BY hour",
} as const;

/** Hours the deliveries chart covers, this one included. */
const DELIVERY_HOURS = 48;

/** The overview's figures as of `now`. */
async function readOverview(db: D1Database, now: number) {
  const since = new Date(now - (OVERVIEW_DAYS - 1) * DAY_MS).toISOString().slice(0, 10);
  const sinceHour = new Date(now - (DELIVERY_HOURS - 1) * 3_600_000).toISOString().slice(0, 13);
  const [perDay, applied, givenUp, perHour] = await db.batch([
    db.prepare(OVERVIEW_SQL.perDay).bind(since),
    db.prepare(OVERVIEW_SQL.applied).bind(since),
    db.prepare(OVERVIEW_SQL.givenUp),
    db.prepare(OVERVIEW_SQL.perHour).bind(sinceHour),
  ]);
  const seconds = (applied!.results as { seconds: number }[]).map((row) => row.seconds);
  return {
    since,
    per_day: perDay!.results as { day: string; status: string; n: number }[],
    median_seconds_to_applied: median(seconds),
    applied_count: seconds.length,
    given_up_events: (givenUp!.results[0] as { n: number }).n,
    /** From this hour (UTC, `YYYY-MM-DDTHH`) on: attempts per hour, delivered (a 2xx) and failed. */
    since_hour: sinceHour,
    per_hour: (perHour!.results as { hour: string; ok: number; n: number }[]).map(({ hour, ok, n }) => ({
      hour,
      outcome: ok ? ("delivered" as const) : ("failed" as const),
      n,
    })),
  };
}

/**
 * The middle of sorted `values` (the mean of the two middle ones for an even count); null for none.
 * @internal Exported for its tests only.
 */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const mid = values.length >> 1;
  const value = values.length % 2 ? values[mid]! : (values[mid - 1]! + values[mid]!) / 2;
  return Math.round(value);
}

/** The handler of `GET /api/overview`. */
export async function overview(c: Context<AppEnv>): Promise<Response> {
  const figures = await fromIndex(() => readOverview(c.env.ONBOARDING_INDEX, Date.now()));
  return c.json(figures, 200, { "cache-control": "no-store" });
}

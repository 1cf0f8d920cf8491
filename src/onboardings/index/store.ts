/**
 * The onboarding index in D1 (migrations/): a row per onboarding and a row per event, read by the
 * host API's list and feed. Each onboarding's Durable Object stays the authority and writes its own
 * rows; a row only ever moves forward (its version), and an event row, once written, changes only
 * in whether its delivery was given up (`failed_at`), and only with a newer version of its onboarding.
 */
import * as z from "zod/mini";
import { ApiError, GrpcCode, type ErrorSpec } from "../../errors";
import {
  onboardingFeedEventSchema,
  onboardingViewSchema,
  type OnboardingFeedEvent,
  type OnboardingView,
} from "../../protocol/index";
import { PAGE_LIMIT_DEFAULT, type EventListQuery, type OnboardingListQuery } from "../http/schemas";
import type { OutboxEvent } from "../state";

/** One onboarding at one version of its state, with every event it has written so far. */
export interface OnboardingRow {
  /** The onboarding as the host sees it at this version. */
  onboarding: OnboardingView;
  version: number;
  /**
   * Its events in the order they were written: each is indexed once, the first time it is seen; `failed_at` follows the
   * object.
   */
  events: readonly (Pick<OutboxEvent, "id" | "type" | "created_at" | "body"> & { failed_at?: string | null })[];
}

/**
 * Writes an onboarding's row and its events in one D1 batch (one transaction). An older or equal
 * version than the row already holds changes nothing at all, the events' given-up marks included:
 * two writes of one onboarding can overlap (the object's write lease is shorter than D1 can take),
 * and the one that lands last must not move the index backwards. Events already indexed keep the
 * place in the global order they first got; only their mark (`failed_at`) follows a newer version.
 * Rejects when D1 does: the caller writes again later.
 */
export async function writeOnboardingRow(db: D1Database, row: OnboardingRow): Promise<void> {
  const { onboarding: o, version } = row;
  const upsert = db
    .prepare(
      `INSERT INTO onboardings (id, status, operator, payout, reference, label, created_at, updated_at, version,
         onboarding)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET status = excluded.status, operator = excluded.operator,
         payout = excluded.payout, reference = excluded.reference, label = excluded.label,
         created_at = excluded.created_at, updated_at = excluded.updated_at, version = excluded.version,
         onboarding = excluded.onboarding
       WHERE excluded.version > onboardings.version`,
    )
    .bind(
      o.id,
      o.status,
      o.operator,
      o.payout,
      o.reference,
      o.label,
      o.created_at,
      o.updated_at,
      version,
      JSON.stringify(o),
    );
  // The events go first in the batch, so their guard reads the version the row held before this write. The event keeps
  // the webhook's data (the onboarding at that change), taken from its exact body, and its place (seq).
  const insertEvent = db.prepare(
    `INSERT INTO events (id, type, created_at, onboarding_id, data, failed_at)
     SELECT ?1, ?2, ?3, ?4, json_extract(?5, '$.data'), ?6
     WHERE NOT EXISTS (SELECT 1 FROM onboardings WHERE id = ?4 AND version >= ?7)
     ON CONFLICT (id) DO UPDATE SET failed_at = excluded.failed_at WHERE failed_at IS NOT excluded.failed_at`,
  );
  const events = row.events.map((e) =>
    insertEvent.bind(e.id, e.type, e.created_at, o.id, e.body, e.failed_at ?? null, version),
  );
  await db.batch([...events, upsert]);
}

/** How long a deleted event's id still finds its place in the feed (its seq, the feed's own cursor, always does). */
const EVENT_CURSOR_KEEP_SECONDS = 90 * 86_400;

/**
 * Deletes an onboarding's rows and its events' (its retention is over); each event's id keeps its
 * place in the feed (migrations/0002_event_cursors.sql), and places older than
 * EVENT_CURSOR_KEEP_SECONDS are dropped.
 */
export async function deleteOnboardingRows(db: D1Database, id: string): Promise<void> {
  await db.batch([
    db.prepare("DELETE FROM events WHERE onboarding_id = ?").bind(id),
    db.prepare("DELETE FROM onboardings WHERE id = ?").bind(id),
    db.prepare("DELETE FROM event_cursors WHERE deleted_at < unixepoch() - ?").bind(EVENT_CURSOR_KEEP_SECONDS),
  ]);
}

/** Onboardings with an event given up (at most `limit` of them), for a host's retry to send again. */
export async function onboardingsWithGivenUpEvents(db: D1Database, limit: number): Promise<string[]> {
  const { results } = await db
    .prepare("SELECT DISTINCT onboarding_id FROM events WHERE failed_at IS NOT NULL LIMIT ?")
    .bind(limit)
    .all<{ onboarding_id: string }>();
  return results.map((row) => row.onboarding_id);
}

/**
 * The version of an onboarding's row, or null while it has none.
 * @internal Exported for its tests only.
 */
export async function indexedVersion(db: D1Database, id: string): Promise<number | null> {
  const row = await db.prepare("SELECT version FROM onboardings WHERE id = ?").bind(id).first<{ version: number }>();
  return row === null ? null : row.version;
}

/** Everything the index's migrations create: without one of them the list and the feed cannot answer. */
const INDEX_PARTS = ["onboardings", "events", "event_cursors", "events_keep_cursor"];

/** The list and the feed on a deployment whose index is missing a table: its migrations were not applied. */
export const INDEX_NOT_READY: ErrorSpec = {
  status: 503,
  code: GrpcCode.UNAVAILABLE,
  reason: "INDEX_NOT_READY",
  message:
    "The onboarding index has no tables on this deployment: run `npx wrangler d1 migrations " +
    "apply ONBOARDING_INDEX --remote --env <environment>`, then ask again",
  metadata: { command: "npx wrangler d1 migrations apply ONBOARDING_INDEX --remote --env <environment>" },
};

/** `read` of the index, a missing table answered as INDEX_NOT_READY (503) rather than an internal error. */
export async function fromIndex<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (/no such (table|trigger)/i.test(String(err))) throw new ApiError(INDEX_NOT_READY);
    throw err;
  }
}

/** Whether every table of the index's migrations is there (`/api/health`), and which are not. */
export async function indexReadiness(db: D1Database): Promise<{ ready: boolean; missing: string[] }> {
  const marks = INDEX_PARTS.map(() => "?").join(", ");
  const { results } = await db
    .prepare(`SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger') AND name IN (${marks})`)
    .bind(...INDEX_PARTS)
    .all<{ name: string }>();
  const found = new Set(results.map((row) => row.name));
  const missing = INDEX_PARTS.filter((name) => !found.has(name));
  return { ready: missing.length === 0, missing };
}

/** A page of the list or the feed. */
export interface Page<T> {
  data: T[];
  has_more: boolean;
}

/**
 * The list's one search box: the `ob_` id or the reference exactly (a host's order id, pasted
 * whole, finds its onboarding alone even when another's begins with it), or the start of the
 * label, operator or payout. Each prefix is a range on its column (`col >= term AND col < term + U+10FFFF`): SQLite
 * reads a range through the column's index, where `LIKE 'term%'` (case-insensitive, with wildcards
 * to escape) would scan; the OR of them is one lookup per index (migrations/0001 and 0004).
 * @internal Exported for the query plan's test.
 */
export const SEARCH_CLAUSE =
  "(id = ? OR reference = ? OR (label >= ? AND label < ?) " +
  "OR (operator >= ? AND operator < ?) OR (payout >= ? AND payout < ?))";

/** The values of SEARCH_CLAUSE for `term`: the id and the reference, then each prefixed column's range. */
function searchValues(term: string): string[] {
  // Above every string that begins with `term` (UTF-8 order): the highest code point after it.
  const range = [term, `${term}\u{10FFFF}`];
  return [term, term, ...range, ...range, ...range];
}

/**
 * Onboardings newest first (created_at, then id, descending), `limit` of them after the
 * `starting_after` onboarding; null when `starting_after` names no onboarding of the index.
 */
export async function queryOnboardings(
  db: D1Database,
  query: OnboardingListQuery,
): Promise<Page<OnboardingView> | null> {
  const { sql, values } = where([
    ["status = ?", query.status],
    ["reference = ?", query.reference],
    ["label = ?", query.label],
    ["operator = ?", query.operator],
    ["payout = ?", query.payout],
    ["created_at >= ?", query.created_gte],
    ["created_at < ?", query.created_lt],
    ["(created_at, id) < (SELECT created_at, id FROM onboardings WHERE id = ?)", query.starting_after],
    [SEARCH_CLAUSE, query.q === undefined ? undefined : searchValues(query.q)],
  ]);
  const limit = query.limit ?? PAGE_LIMIT_DEFAULT;
  const page = db
    .prepare(`SELECT onboarding FROM onboardings${sql} ORDER BY created_at DESC, id DESC LIMIT ?`)
    .bind(...values, limit + 1);
  const cursor =
    query.starting_after === undefined
      ? null
      : db.prepare("SELECT 1 FROM onboardings WHERE id = ?").bind(query.starting_after);
  const rows = await pageWithCursor(db, page, cursor);
  return (
    rows &&
    paged(
      rows.map((row) => z.parse(onboardingRow, row).onboarding),
      limit,
    )
  );
}

/** The seq of event `id`, where it is kept or where its deletion left it. */
const EVENT_SEQ = "COALESCE((SELECT seq FROM events WHERE id = ?1), (SELECT seq FROM event_cursors WHERE id = ?1))";

/**
 * Events oldest first (in the order they were first indexed, their seq), after the `after` place:
 * a seq, which always answers, or an event id, which answers while it is kept or its deletion is
 * remembered; null when `after` is an id the index does not know.
 */
export async function queryEvents(db: D1Database, query: EventListQuery): Promise<Page<OnboardingFeedEvent> | null> {
  const after = query.after;
  const byId = after !== undefined && typeof after !== "number";
  const { sql, values } = where([
    ["type = ?", query.type],
    ["onboarding_id = ?", query.onboarding],
  ]);
  // The place first: `?1` in EVENT_SEQ is the first value.
  const place = after === undefined ? [] : byId ? [`seq > ${EVENT_SEQ}`] : ["seq > ?1"];
  const clauses = [...place, ...(sql ? [sql.slice(" WHERE ".length)] : [])];
  const filter = clauses.length ? ` WHERE ${clauses.join(" AND ")}` : "";
  const limit = query.limit ?? PAGE_LIMIT_DEFAULT;
  const page = db
    .prepare(
      `SELECT seq, id, type, created_at, onboarding_id, failed_at, data FROM events${filter} ORDER BY seq LIMIT ?`,
    )
    .bind(...(after === undefined ? [] : [after]), ...values, limit + 1);
  const cursor = byId ? db.prepare(`SELECT ${EVENT_SEQ} AS seq`).bind(after) : null;
  const rows = await pageWithCursor(db, page, cursor);
  return (
    rows &&
    paged(
      rows.map((row) => z.parse(eventRow, row)),
      limit,
    )
  );
}

/** ` WHERE …` joining the clauses whose value is given (one `?` per value), and those values in order. */
function where(clauses: readonly (readonly [string, string | readonly string[] | undefined])[]): {
  sql: string;
  values: string[];
} {
  const given = clauses.filter(
    (clause): clause is readonly [string, string | readonly string[]] => clause[1] !== undefined,
  );
  return {
    sql: given.length ? ` WHERE ${given.map(([clause]) => clause).join(" AND ")}` : "",
    values: given.flatMap(([, value]) => value),
  };
}

/** The page's rows, read with the check that its cursor exists in the same round trip; null when it does not. */
async function pageWithCursor(
  db: D1Database,
  page: D1PreparedStatement,
  cursor: D1PreparedStatement | null,
): Promise<unknown[] | null> {
  if (cursor === null) return (await page.all()).results;
  const [found, rows] = await db.batch([cursor, page]);
  const first = found!.results[0] as Record<string, unknown> | undefined;
  return first === undefined || first.seq === null ? null : rows!.results;
}

function paged<T>(items: T[], limit: number): Page<T> {
  return { data: items.slice(0, limit), has_more: items.length > limit };
}

/** JSON kept as text in a row. */
const jsonText = z.pipe(
  z.string(),
  z.transform((text, ctx): unknown => {
    try {
      return JSON.parse(text);
    } catch {
      ctx.issues.push({ code: "custom", message: "is not JSON", input: text });
      return null;
    }
  }),
);

/** The onboarding as the host sees it, kept as JSON. */
const storedOnboarding = z.pipe(jsonText, onboardingViewSchema);
const onboardingRow = z.object({ onboarding: storedOnboarding });
// The feed event's fields with its data read from JSON (a spread: zod's `extend` is not bundled for one use).
const eventRow = z.object({ ...onboardingFeedEventSchema.shape, data: storedOnboarding });

/**
 * The dashboard's sessions in D1 (migrations/0004_dashboard.sql): the cookie's signed token names a
 * row here, so signing out (revoked_at) ends the token at once, wherever a copy of it is.
 */

/** How long a dashboard session lasts at most. */
export const SESSION_SECONDS = 12 * 3600;

/** How the session was entered. */
export type SessionVia = "key" | "access";

/** A live session: its id and when it ends (Unix seconds). */
export interface DashboardSession {
  id: string;
  expiresAt: number;
  via: SessionVia;
}

/** Stores a new session ending at `expiresAt` (Unix seconds); also prunes the rows whose time is over. */
export async function openSession(db: D1Database, via: SessionVia, now: number, expiresAt: number) {
  const id = crypto.randomUUID();
  await db.batch([
    db
      .prepare("INSERT INTO dashboard_sessions (id, created_at, expires_at, via) VALUES (?, ?, ?, ?)")
      .bind(id, now, expiresAt, via),
    db.prepare("DELETE FROM dashboard_sessions WHERE expires_at < ?").bind(now),
  ]);
  return { id, expiresAt, via } satisfies DashboardSession;
}

/** The session `id` while it is neither revoked nor expired at `now`; null otherwise. */
export async function liveSession(db: D1Database, id: string, now: number): Promise<DashboardSession | null> {
  const row = await db
    .prepare("SELECT expires_at, via FROM dashboard_sessions WHERE id = ? AND revoked_at IS NULL AND expires_at > ?")
    .bind(id, now)
    .first<{ expires_at: number; via: SessionVia }>();
  return row && { id, expiresAt: row.expires_at, via: row.via };
}

/** Ends session `id`: its token is refused from now on. */
export async function revokeSession(db: D1Database, id: string, now: number): Promise<void> {
  await db.prepare("UPDATE dashboard_sessions SET revoked_at = ? WHERE id = ?").bind(now, id).run();
}

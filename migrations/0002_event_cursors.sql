-- The feed's cursor survives its onboarding's deletion. The feed's own order is events.seq
-- (AUTOINCREMENT: never reused, so "after seq N" always means the same place), and the feed now
-- shows it; a host that keeps it reads on from there whatever was deleted since. A host that keeps
-- an event id instead still finds its place: when an event row is deleted (its onboarding's
-- retention is over), its id and seq stay here, and the feed reads on from that seq.

CREATE TABLE event_cursors (
  id TEXT PRIMARY KEY,
  seq INTEGER NOT NULL,
  -- Unix seconds: kept 90 days after the deletion (src/onboardings/index/store.ts prunes older ones).
  deleted_at INTEGER NOT NULL
);

CREATE TRIGGER events_keep_cursor AFTER DELETE ON events
BEGIN
  INSERT OR REPLACE INTO event_cursors (id, seq, deleted_at) VALUES (old.id, old.seq, unixepoch());
END;

-- The host's dashboard (/dashboard/): its signed-in sessions and what its overview reads.

-- One row per dashboard session. The cookie carries a signed, expiring token naming a row here;
-- sign-out sets revoked_at, and a token whose row is revoked, expired or gone is refused, so a
-- copied cookie stops working at sign-out, not 12 hours later. Rows past expires_at are pruned.
CREATE TABLE dashboard_sessions (
  id TEXT PRIMARY KEY,
  -- Unix seconds.
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  revoked_at INTEGER,
  -- How it was entered: "key" (a host API key) or "access" (a Cloudflare Access identity).
  via TEXT NOT NULL
);
CREATE INDEX dashboard_sessions_by_expiry ON dashboard_sessions (expires_at);

-- The overview's onboardings per day by outcome reads created_at and status from this index alone
-- (a covering range scan of the last 30 days), and the median time to applied reads the applied
-- ones of that range by (status, created_at) with updated_at at hand.
CREATE INDEX onboardings_by_created_status ON onboardings (created_at, status);
CREATE INDEX onboardings_applied_times ON onboardings (status, created_at, updated_at);

-- One row per attempt to deliver an event to the host's webhook (written by the onboarding's
-- object after each attempt, best effort: a row D1 refused is a point missing from a chart, never
-- a delivery lost). The overview's deliveries per hour over 48 hours read it by time; rows older
-- than 7 days are pruned on every write, through the same index.
CREATE TABLE delivery_attempts (
  at TEXT NOT NULL,
  event_id TEXT NOT NULL,
  -- 1: the receiver answered 2xx; 0: any other answer, or none.
  ok INTEGER NOT NULL
);
CREATE INDEX delivery_attempts_by_time ON delivery_attempts (at, ok);

-- The dashboard searches onboardings by label too: the label as a column of its own (filled in for
-- the rows already there from their JSON), read through an index in the list's order.
ALTER TABLE onboardings ADD COLUMN label TEXT;
UPDATE onboardings SET label = json_extract(onboarding, '$.label');
CREATE INDEX onboardings_by_label ON onboardings (label, created_at DESC, id DESC);

-- The index of onboardings and their events that the host API's list and feed read. Each
-- onboarding's Durable Object stays the authority and writes its own rows after every change;
-- a row only moves forward (version), and an event, once written, never changes.

-- One row per onboarding: the fields a host filters on, and the onboarding as the host sees it.
CREATE TABLE onboardings (
  id TEXT PRIMARY KEY,
  status TEXT NOT NULL,
  operator TEXT NOT NULL,
  payout TEXT,
  reference TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  -- The onboarding's own change counter: an upsert with a version not above this one is ignored.
  version INTEGER NOT NULL,
  -- The onboarding's JSON, as GET /api/onboardings/:id answers it at this version.
  onboarding TEXT NOT NULL
);

-- The list is newest first (created_at DESC, id DESC) and pages by that key, with or without a filter.
CREATE INDEX onboardings_by_created ON onboardings (created_at DESC, id DESC);
CREATE INDEX onboardings_by_status ON onboardings (status, created_at DESC, id DESC);
CREATE INDEX onboardings_by_reference ON onboardings (reference, created_at DESC, id DESC);
CREATE INDEX onboardings_by_operator ON onboardings (operator, created_at DESC, id DESC);
CREATE INDEX onboardings_by_payout ON onboardings (payout, created_at DESC, id DESC);

-- One row per event, in one global order: seq is assigned when the row is first written and never
-- reused (AUTOINCREMENT), so a reader that saw an event finds every event written after it above it.
CREATE TABLE events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  type TEXT NOT NULL,
  created_at TEXT NOT NULL,
  onboarding_id TEXT NOT NULL,
  -- The event's data: the onboarding as the host saw it at that change (the webhook's data).
  data TEXT NOT NULL
);

CREATE INDEX events_by_onboarding ON events (onboarding_id, seq);
CREATE INDEX events_by_type ON events (type, seq);

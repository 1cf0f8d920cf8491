-- Whether an event's delivery to the host's webhook was given up (3 days after its first failed
-- attempt), as the feed shows it; the onboarding's object sets it, and clears it when a retry sends
-- the event again. A partial index keeps the retry's search for given-up events small.
ALTER TABLE events ADD COLUMN failed_at TEXT;
CREATE INDEX events_given_up ON events (onboarding_id) WHERE failed_at IS NOT NULL;

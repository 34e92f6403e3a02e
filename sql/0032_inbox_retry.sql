-- regtrack schema, part 32: an inbox's first poll, series retries.
--
-- A new inbox starts at each epoch's head (a lore list holds years of
-- patches: those are not tested); `since` reads back to a date instead
-- (commits the archive received since then). `started` is set by the
-- first poll that ends without an error: until then an epoch without a
-- position starts at its head, after it a new epoch is read whole.
-- Inboxes followed before this part were read whole already: started.
ALTER TABLE inboxes
	ADD COLUMN since   timestamptz,
	ADD COLUMN started boolean NOT NULL DEFAULT true;
ALTER TABLE inboxes ALTER COLUMN started SET DEFAULT false;

-- A complete series whose check failed for a reason that may pass (b4 or
-- git am timing out, the mirror or the database away, the request
-- submission overloaded) stays `waiting` and is tried again at retry_at,
-- backed off per try; past the last try it ends `failed` (reason says why).
-- `failed` also ends a series that cannot become a request (not UTF-8).
ALTER TABLE inbox_series
	ADD COLUMN attempts integer NOT NULL DEFAULT 0,
	ADD COLUMN retry_at timestamptz;
ALTER TABLE inbox_series DROP CONSTRAINT inbox_series_state_check;
ALTER TABLE inbox_series ADD CONSTRAINT inbox_series_state_check
	CHECK (state IN ('waiting', 'incomplete', 'filtered', 'not-applying', 'duplicate',
	                 'queued', 'tested', 'replied', 'failed'));

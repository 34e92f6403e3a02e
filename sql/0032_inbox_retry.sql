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

-- The filter's MAINTAINERS entries ("MEMORY MANAGEMENT"): a series is tested
-- when it touches a path under one of `paths` or one of these entries' F:
-- patterns (none of its X:), as the MAINTAINERS of the plan's branch head
-- says (server/inbox_series.c, lib/maintainers.c). Both empty: any path.
ALTER TABLE inboxes ADD COLUMN maintainers text[] NOT NULL DEFAULT '{}';

-- A message that is not UTF-8 text (a Latin-1 patch sent 8-bit) as
-- delivered: `raw` holds it scrubbed for showing, b4 and git am read these
-- bytes (a patch's bytes changed would change its patch-id). NULL: raw is it.
ALTER TABLE inbox_messages ADD COLUMN raw_bytes bytea;

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

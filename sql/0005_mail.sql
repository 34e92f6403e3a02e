-- regtrack schema, part 5: regression reports by email (issue 7).
--
-- outbox: one row per mail. A row is inserted in the same transaction as the
-- state change that causes it (a bisect marked done, a regression marked
-- fixed, a report asked for by hand) and holds, until the mailer first
-- claims it, only what to render (kind + regression/bisect ids). The mailer
-- (server/mailer.c) claims due rows with FOR UPDATE SKIP LOCKED, renders the
-- text once (subject, body, recipients, message_id are then fixed), sends,
-- and marks the row sent in that same transaction; a failed attempt keeps
-- the row queued with next_attempt_at pushed back (exponential backoff).
CREATE TABLE outbox (
	id              bigserial PRIMARY KEY,
	kind            text NOT NULL CHECK (kind IN ('bisect', 'range', 'fixed')),
	regression_id   bigint,
	bisect_id       bigint,
	-- the first mail of the thread this one replies to (NULL: starts a thread)
	thread_id       bigint REFERENCES outbox(id),
	state           text NOT NULL DEFAULT 'queued'
	                CHECK (state IN ('queued', 'sent', 'dry_run', 'failed', 'skipped')),
	message_id      text UNIQUE,
	in_reply_to     text,
	subject         text,
	body            text,
	recipients      text[],
	attempts        integer NOT NULL DEFAULT 0,
	next_attempt_at timestamptz NOT NULL DEFAULT now(),
	last_error      text,
	created_at      timestamptz NOT NULL DEFAULT now(),
	sent_at         timestamptz
);
CREATE INDEX outbox_due ON outbox (next_attempt_at, id) WHERE state = 'queued';
CREATE INDEX outbox_regression ON outbox (regression_id, id);

-- Who gets which report. NULL or empty fields match anything; metric is a
-- glob (fnmatch); paths are globs matched against the files the culprit
-- touched (any one matching is enough). A subscription with only a tree is
-- the tree's fixed CC list.
CREATE TABLE subscriptions (
	id          bigserial PRIMARY KEY,
	email       text NOT NULL,
	tree        text,
	testcase    text,
	metric      text,
	paths       text[] NOT NULL DEFAULT '{}',
	created_at  timestamptz NOT NULL DEFAULT now()
);

-- A regression marked fixed (by whatever path: API, detector, psql) queues
-- its follow-up in the same transaction; the mailer sends it as a reply to
-- the regression's first report, or marks it failed when there was none.
CREATE FUNCTION outbox_regression_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO outbox (kind, regression_id) VALUES ('fixed', NEW.id);
	RETURN NULL;
END $$;
CREATE TRIGGER outbox_regression_fixed AFTER UPDATE OF state ON regressions
	FOR EACH ROW WHEN (NEW.state = 'fixed' AND OLD.state IS DISTINCT FROM 'fixed')
	EXECUTE FUNCTION outbox_regression_fixed();

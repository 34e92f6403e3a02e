-- regtrack schema, part 3: change detection off the request path and
-- regression records (issue 5; server/detect_thread.c, server/regressions.c).
--
-- detect_queue: an ingest inserts (setup_id) with ON CONFLICT DO NOTHING in
-- the transaction that stores the run. The detection thread claims one row
-- (claimed_at set, FOR UPDATE SKIP LOCKED), recomputes the setup's series,
-- and deletes the claimed row. A claimed row leaves the partial unique
-- index, so a run stored while its setup is being examined queues the setup
-- again and is never missed. A claim older than 10 minutes (a server that
-- died mid-detection) is put back. Each insert notifies channel
-- 'regtrack_detect' (delivered at commit) to wake the threads at once.

CREATE TABLE detect_queue (
	id          bigserial PRIMARY KEY,
	setup_id    bigint NOT NULL REFERENCES setups(id),
	queued_at   timestamptz NOT NULL DEFAULT now(),
	claimed_at  timestamptz
);
CREATE UNIQUE INDEX detect_queue_pending ON detect_queue (setup_id) WHERE claimed_at IS NULL;

CREATE FUNCTION detect_queue_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_notify('regtrack_detect', NEW.setup_id::text);
	RETURN NULL;
END $$;
CREATE TRIGGER detect_queue_notify AFTER INSERT ON detect_queue
	FOR EACH ROW EXECUTE FUNCTION detect_queue_notify();

-- A detected change of one series (setup + metric) between two adjacent
-- commits of the series: good_commit_id (last good) and bad_commit_id
-- (first bad). kind by the metric's direction; 'change' when unknown.
-- Sizes from compare_samples() of the run means on the two sides of the
-- change (before: from the previous change point or W commits back; after:
-- to the next change point or W commits on), and of the two commits alone.
-- det_* are the detector's own figures (medians of per-commit medians).
-- detected: the latest detection of the series still finds this range.
-- The group of a record is every record with the same range; its id is
-- the smallest id among them (computed when read).
CREATE TABLE regressions (
	id              bigserial PRIMARY KEY,
	setup_id        bigint NOT NULL REFERENCES setups(id),
	metric_id       integer NOT NULL REFERENCES metrics(id),
	good_commit_id  bigint NOT NULL REFERENCES commits(id),
	bad_commit_id   bigint NOT NULL REFERENCES commits(id),
	kind            text NOT NULL CHECK (kind IN ('regression', 'improvement', 'change')),
	state           text NOT NULL DEFAULT 'new'
	                CHECK (state IN ('new', 'confirmed', 'bisecting', 'bisected', 'reported',
	                                 'fixed', 'invalid', 'wontfix')),
	change_pct      double precision,
	ci_lo_pct       double precision,
	ci_hi_pct       double precision,
	p_value         double precision,
	verdict         text NOT NULL,      -- compare_samples verdict of the two sides
	mean_before     double precision,
	mean_after      double precision,
	n_before        integer NOT NULL,   -- runs on each side
	n_after         integer NOT NULL,
	commits_after   integer NOT NULL,   -- commits on the after side
	pair_change_pct double precision,   -- last good vs first bad commit alone
	pair_p_value    double precision,
	pair_verdict    text NOT NULL,
	det_before      double precision,
	det_after       double precision,
	det_change_pct  double precision,
	det_p_value     double precision,
	detected        boolean NOT NULL DEFAULT true,
	bisect_id       bigint,             -- set by the bisect module (sql/0004)
	created_at      timestamptz NOT NULL DEFAULT now(),
	updated_at      timestamptz NOT NULL DEFAULT now(),
	detected_at     timestamptz NOT NULL DEFAULT now(),
	UNIQUE (setup_id, metric_id, good_commit_id, bad_commit_id)
);
CREATE INDEX regressions_range ON regressions (good_commit_id, bad_commit_id);
CREATE INDEX regressions_created ON regressions (created_at DESC, id DESC);
CREATE INDEX regressions_state ON regressions (state);

-- Every state change (and note) of a record: who is 'detector' or
-- 'token:NAME' (token_id kept too); from_state NULL at creation.
CREATE TABLE regression_history (
	id             bigserial PRIMARY KEY,
	regression_id  bigint NOT NULL REFERENCES regressions(id) ON DELETE CASCADE,
	at             timestamptz NOT NULL DEFAULT clock_timestamp(),
	who            text NOT NULL,
	token_id       bigint REFERENCES api_tokens(id),
	from_state     text,
	to_state       text NOT NULL,
	note           text
);
CREATE INDEX regression_history_reg ON regression_history (regression_id, id);

-- regtrack schema, part 4: bisects (issue 6; server/bisect*.c, lib/bisect/).
--
-- A bisect narrows good..bad of one series (testcase, params, kconfig,
-- compiler, tbox_group or arch, metric) to its first bad commit. Its
-- candidates are the commits of the range in history order (bisect_commits,
-- idx 0 = oldest, the last = the bad endpoint). Its measurements are
-- ordinary jobs with jobs.bisect_id set; a round is the set of jobs queued
-- together (jobs.bisect_round). The coordinator thread plans the next round
-- when every job of the last one has finished (lib/bisect/plan.h) and
-- records one step per commit measured in a round, with the samples so far,
-- the verdict and the evidence behind it.

CREATE TABLE bisects (
	id              bigserial PRIMARY KEY,
	state           text NOT NULL DEFAULT 'queued'
	                CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
	tree_id         bigint NOT NULL REFERENCES trees(id),
	good_id         bigint NOT NULL REFERENCES commits(id),
	bad_id          bigint NOT NULL REFERENCES commits(id),
	testcase_id     integer NOT NULL REFERENCES testcases(id),
	params          jsonb NOT NULL DEFAULT '{}',
	kconfig         text NOT NULL,
	compiler        text NOT NULL,
	arch            text,
	tbox_group      text,
	metric          text NOT NULL,
	runs_per_step   integer NOT NULL DEFAULT 5 CHECK (runs_per_step BETWEEN 1 AND 100),
	ref_runs        integer NOT NULL DEFAULT 10 CHECK (ref_runs BETWEEN 2 AND 100),
	max_k           integer NOT NULL DEFAULT 0 CHECK (max_k BETWEEN 0 AND 64), -- 0 = idle workers
	regression_id   bigint,         -- the regression it was started for (sql/0003), if any
	round           integer NOT NULL DEFAULT 0,
	phase           text,           -- refs, search, verify, end (planner's phase)
	nr_candidates   integer,        -- commits on the first-parent chain good..bad
	nr_range        integer,        -- commits in good..bad (git rev-list --bisect-all)
	first_bad_id    bigint REFERENCES commits(id),
	candidate_ids   bigint[],       -- ambiguous end: the first bad is one of these
	confidence      double precision,
	outcome         text CHECK (outcome IN ('found', 'ambiguous')),
	reason          text,           -- why it failed / what is ambiguous
	verification    jsonb,          -- first bad vs its parent (compare_samples)
	model           jsonb,          -- mu_good, mu_bad, sigma, separation, deterministic
	submitted_by    bigint REFERENCES api_tokens(id),
	created_at      timestamptz NOT NULL DEFAULT now(),
	started_at      timestamptz,
	finished_at     timestamptz
);
CREATE INDEX bisects_active ON bisects (id) WHERE state IN ('queued', 'running');
CREATE INDEX bisects_regression ON bisects (regression_id);

CREATE TABLE bisect_commits (
	bisect_id   bigint NOT NULL REFERENCES bisects(id) ON DELETE CASCADE,
	idx         integer NOT NULL,
	commit_id   bigint NOT NULL REFERENCES commits(id),
	PRIMARY KEY (bisect_id, idx)
);

CREATE TABLE bisect_steps (
	id          bigserial PRIMARY KEY,
	bisect_id   bigint NOT NULL REFERENCES bisects(id) ON DELETE CASCADE,
	commit_id   bigint NOT NULL REFERENCES commits(id),
	round       integer NOT NULL,
	role        text NOT NULL CHECK (role IN ('good', 'bad', 'probe', 'verify')),
	verdict     text NOT NULL CHECK (verdict IN ('good', 'bad', 'skip', 'unknown', 'untested')),
	samples     double precision[] NOT NULL DEFAULT '{}',
	evidence    jsonb NOT NULL DEFAULT '{}',
	created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX bisect_steps_bisect ON bisect_steps (bisect_id, id);

ALTER TABLE jobs
	ADD COLUMN bisect_id    bigint REFERENCES bisects(id),
	ADD COLUMN bisect_round integer;
CREATE INDEX jobs_bisect ON jobs (bisect_id, bisect_round) WHERE bisect_id IS NOT NULL;

-- The server's bare mirror of each tree (server/gitmirror.c): when it was
-- last fetched and imported from which url, and the error if that failed.
CREATE TABLE tree_mirrors (
	tree_id     bigint PRIMARY KEY REFERENCES trees(id) ON DELETE CASCADE,
	url         text,
	synced_at   timestamptz NOT NULL DEFAULT now(),
	commits     integer,
	error       text
);

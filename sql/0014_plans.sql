-- regtrack schema, part 14: trees are tracked by themselves (issue 17).
--
-- A tree is polled every poll_s seconds (0: only when asked, by
-- POST /api/v1/trees/{name}/poll) while an enabled plan uses it; one
-- server polls a tree at a time (a session advisory lock on the tree's
-- id, server/poller.c). A failed fetch keeps git's message in poll_error
-- and pushes next_poll_at out (doubling per failure, at most 6 h).
ALTER TABLE trees
	ADD COLUMN poll_s            integer NOT NULL DEFAULT 300 CHECK (poll_s BETWEEN 0 AND 604800),
	ADD COLUMN next_poll_at      timestamptz NOT NULL DEFAULT now(),
	ADD COLUMN poll_requested_at timestamptz,
	ADD COLUMN polls             bigint NOT NULL DEFAULT 0,
	ADD COLUMN last_poll_at      timestamptz,
	ADD COLUMN last_poll_ms      integer,
	ADD COLUMN poll_error        text,
	ADD COLUMN poll_failures     integer NOT NULL DEFAULT 0;

-- The last head seen of each branch of a tree's mirror.
CREATE TABLE tree_branches (
	tree_id      bigint NOT NULL REFERENCES trees(id) ON DELETE CASCADE,
	branch       text NOT NULL,
	sha          text NOT NULL CHECK (sha ~ '^[0-9a-f]{40}$'),
	previous_sha text,
	forced       boolean NOT NULL DEFAULT false, -- the last move was not a fast-forward
	updated_at   timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (tree_id, branch)
);

-- A test plan: spec is the plan's JSON as the API replies it (every field
-- present, normalized by server/plan.c); name, tree and enabled are
-- columns too for the poller's reads.
CREATE TABLE plans (
	id         bigserial PRIMARY KEY,
	name       text NOT NULL UNIQUE,
	tree_id    bigint NOT NULL REFERENCES trees(id),
	spec       jsonb NOT NULL,
	enabled    boolean NOT NULL DEFAULT true,
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX plans_tree ON plans (tree_id) WHERE enabled;

-- The head each plan has scheduled up to, per branch: a branch without a
-- row is new to the plan, and its first poll tests only its head.
CREATE TABLE plan_branches (
	plan_id    bigint NOT NULL REFERENCES plans(id) ON DELETE CASCADE,
	branch     text NOT NULL,
	sha        text NOT NULL,
	updated_at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (plan_id, branch)
);

-- What one push queued for one plan: the commits tested and why, and the
-- ones left out and why ({commit, reason}).
CREATE TABLE plan_pushes (
	id          bigserial PRIMARY KEY,
	plan_id     bigint NOT NULL REFERENCES plans(id) ON DELETE CASCADE,
	branch      text NOT NULL,
	old_sha     text,                      -- NULL: the plan's first look at the branch
	new_sha     text NOT NULL,
	base_sha    text,                      -- merge base of old and new
	forced      boolean NOT NULL DEFAULT false,
	commits     integer NOT NULL,          -- first-parent commits in base..new
	tested      jsonb NOT NULL DEFAULT '[]', -- [{commit, reason}]: head, every, baseline
	jobs_queued integer NOT NULL,          -- jobs created (a job that existed is not counted)
	superseded  integer NOT NULL DEFAULT 0, -- older queued jobs of the branch it cancelled
	skipped     jsonb NOT NULL DEFAULT '[]', -- [{commit, reason}]
	at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX plan_pushes_plan ON plan_pushes (plan_id, id DESC);

-- A tracking job is made once per (plan, commit, setup): track_key names
-- the setup (kconfig, compiler, testcase, params, target), so a poll
-- repeated after a crash, two servers, or a commit on two branches insert
-- nothing twice (INSERT ... ON CONFLICT DO NOTHING). Other jobs have NULL
-- plan_id, which a unique index never compares equal.
ALTER TABLE jobs
	ADD COLUMN plan_id      bigint REFERENCES plans(id) ON DELETE SET NULL,
	ADD COLUMN track_key    text,
	ADD COLUMN track_branch text;  -- the branch whose push queued it (supersede)
CREATE UNIQUE INDEX jobs_tracked ON jobs (plan_id, commit_id, track_key);

-- the poller numbers imported commits after the tree's last
CREATE INDEX commits_tree_topo ON commits (tree_id, topo_order);

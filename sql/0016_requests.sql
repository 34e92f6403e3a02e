-- regtrack schema, part 16: A/B requests (issue 18).
--
-- (0014 is tracking's plans, 0015 verdict's regression shift: taken on
-- their branches when this was written; 0016 is the next free number.)
--
-- A request tests a change against its base: the head commit, or an mbox
-- of patches the worker applies on base with `git am` (committer identity
-- and date fixed from the mbox, so every worker derives the same sha).
-- Its jobs are rows of jobs with request_id set: per target and testcase
-- (ab_group) `rounds` pairs, base then head, created in A B A B order so
-- the lease's ORDER BY priority, id hands them out interleaved. A group
-- whose target is an arch is pinned to one tbox_group when its first job
-- (ab_pair 0, base) is leased: both sides run on the same class of
-- machines (ST_JOB_LEASE).
CREATE TABLE requests (
	id             bigserial PRIMARY KEY,
	state          text NOT NULL DEFAULT 'queued'
	               CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
	tree_id        bigint NOT NULL REFERENCES trees(id),
	base_ref       text NOT NULL,
	base_sha       text NOT NULL CHECK (base_sha ~ '^[0-9a-f]{40}$'),
	head_ref       text,                  -- NULL for patches
	head_sha       text,                  -- patches: the sha the first head run recorded
	patches        text,                  -- the mbox as submitted
	nr_patches     integer,
	spec           jsonb NOT NULL,        -- the submission, normalized (server/api/requests.c)
	notify         text,
	label          text,
	verdict        text CHECK (verdict IN ('regression', 'improvement', 'no-change', 'inconclusive')),
	result         jsonb,                 -- {rows: [...]} once decided
	fail_reason    text,
	submitted_by   bigint REFERENCES api_tokens(id),
	created_at     timestamptz NOT NULL DEFAULT now(),
	finished_at    timestamptz
);
CREATE INDEX requests_state ON requests (state, id);

ALTER TABLE jobs
	ADD COLUMN request_id bigint REFERENCES requests(id),
	ADD COLUMN ab_side    text CHECK (ab_side IN ('base', 'head')),
	ADD COLUMN ab_pair    integer,        -- round: 0, 1, ... (A B of one round)
	ADD COLUMN ab_group   text;           -- target + testcase + params: the jobs pinned together
CREATE INDEX jobs_request ON jobs (request_id, ab_group) WHERE request_id IS NOT NULL;

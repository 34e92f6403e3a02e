-- regtrack schema, part 2: the job queue and the worker protocol.
-- A job is leased with SELECT ... FOR UPDATE SKIP LOCKED; a lease that
-- sees no heartbeat for lease_timeout_s goes back to the queue with its
-- attempts raised, and fails for good after max_attempts.

ALTER TABLE jobs
	ADD COLUMN tbox_group       text,
	ADD COLUMN need_capability  text NOT NULL DEFAULT 'host',
	ADD COLUMN attempts         integer NOT NULL DEFAULT 0,
	ADD COLUMN max_attempts     integer NOT NULL DEFAULT 3,
	ADD COLUMN leased_by        bigint REFERENCES machines(id),
	ADD COLUMN leased_at        timestamptz,
	ADD COLUMN lease_expires_at timestamptz,
	ADD COLUMN phase            text,
	ADD COLUMN progress         double precision,
	ADD COLUMN message          text,
	ADD COLUMN phase_history    jsonb NOT NULL DEFAULT '[]',
	ADD COLUMN outcome          text,       -- ok, build-failed, boot-failed, run-failed
	ADD COLUMN fail_reason      text,
	ADD COLUMN log_tail         text,
	ADD COLUMN kconfig_text     text,
	ADD COLUMN finished_at      timestamptz,
	ADD COLUMN submitted_by     bigint REFERENCES api_tokens(id);

CREATE INDEX jobs_queue ON jobs (priority DESC, id) WHERE state = 'queued';
CREATE INDEX jobs_leased ON jobs (lease_expires_at) WHERE state = 'leased';
CREATE INDEX jobs_state ON jobs (state, id);
CREATE INDEX runs_job ON runs (job_id);

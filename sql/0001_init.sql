-- regtrack schema, part 1: what results need (DESIGN.md "Terms").
-- Applied by `regtrack-server migrate` in one transaction and recorded in
-- schema_migrations (which the migrator itself creates).

CREATE TABLE trees (
	id          bigserial PRIMARY KEY,
	name        text NOT NULL UNIQUE,
	url         text,
	branches    text[] NOT NULL DEFAULT '{}',
	created_at  timestamptz NOT NULL DEFAULT now()
);

-- A commit is known by its sha. Series are ordered by `topo_order` once the
-- tree's history has been read (bisect issue); until then by commit_time,
-- then first_seen.
CREATE TABLE commits (
	id           bigserial PRIMARY KEY,
	sha          text NOT NULL UNIQUE CHECK (sha ~ '^[0-9a-f]{40}$'),
	tree_id      bigint REFERENCES trees(id),
	subject      text,
	author       text,
	commit_time  timestamptz,
	parents      text[],
	topo_order   bigint,
	first_seen   timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX commits_order ON commits (topo_order, commit_time, first_seen);

CREATE TABLE machines (
	id            bigserial PRIMARY KEY,
	hostname      text NOT NULL,
	arch          text NOT NULL,
	tbox_group    text NOT NULL,
	nr_cpus       integer,
	memory_mb     bigint,
	cpu_model     text,
	capabilities  text[] NOT NULL DEFAULT '{}',
	fingerprint   jsonb NOT NULL DEFAULT '{}',
	registered_at timestamptz NOT NULL DEFAULT now(),
	last_seen     timestamptz NOT NULL DEFAULT now(),
	UNIQUE (hostname, arch, tbox_group)
);

CREATE TABLE testcases (
	id          serial PRIMARY KEY,
	name        text NOT NULL UNIQUE,
	created_at  timestamptz NOT NULL DEFAULT now()
);

-- higher_is_better NULL = unknown; source says where unit/direction came
-- from: 'pattern' (name patterns at first sight) or 'api' (set by a user).
CREATE TABLE metrics (
	id               serial PRIMARY KEY,
	name             text NOT NULL UNIQUE,
	unit             text NOT NULL DEFAULT '',
	higher_is_better boolean,
	is_monitor       boolean NOT NULL DEFAULT false,
	source           text NOT NULL DEFAULT 'pattern',
	created_at       timestamptz NOT NULL DEFAULT now()
);

-- One test setup: what makes a series, apart from the metric and commit.
-- params_key is the canonical (sorted, compact) JSON text of params.
CREATE TABLE setups (
	id          bigserial PRIMARY KEY,
	testcase_id integer NOT NULL REFERENCES testcases(id),
	params      jsonb NOT NULL,
	params_key  text NOT NULL,
	kconfig     text NOT NULL,
	compiler    text NOT NULL,
	tbox_group  text NOT NULL,
	mode        text NOT NULL DEFAULT 'wallclock',
	UNIQUE (testcase_id, params_key, kconfig, compiler, tbox_group, mode)
);

CREATE TABLE jobs (
	id          bigserial PRIMARY KEY,
	tree_id     bigint REFERENCES trees(id),
	commit_id   bigint NOT NULL REFERENCES commits(id),
	testcase_id integer NOT NULL REFERENCES testcases(id),
	params      jsonb NOT NULL DEFAULT '{}',
	kconfig     text NOT NULL,
	compiler    text NOT NULL,
	arch        text,
	repeat      integer NOT NULL DEFAULT 1 CHECK (repeat BETWEEN 1 AND 1000),
	state       text NOT NULL DEFAULT 'queued'
	            CHECK (state IN ('queued', 'leased', 'done', 'failed', 'cancelled')),
	priority    integer NOT NULL DEFAULT 0,
	created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE runs (
	id           bigserial PRIMARY KEY,
	run_id       uuid NOT NULL UNIQUE,
	job_id       bigint REFERENCES jobs(id),
	commit_id    bigint NOT NULL REFERENCES commits(id),
	setup_id     bigint NOT NULL REFERENCES setups(id),
	machine_id   bigint REFERENCES machines(id),
	tree_id      bigint REFERENCES trees(id),
	branch       text,
	status       text NOT NULL DEFAULT 'ok',
	started_at   timestamptz,
	duration_s   double precision,
	doc_sha256   bytea NOT NULL,
	extra        jsonb NOT NULL DEFAULT '{}',
	received_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX runs_setup_commit ON runs (setup_id, commit_id);
CREATE INDEX runs_commit ON runs (commit_id);

-- Every replicate of one metric in one run, in iteration order.
CREATE TABLE run_values (
	run_id     bigint NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	metric_id  integer NOT NULL REFERENCES metrics(id),
	vals       double precision[] NOT NULL,
	PRIMARY KEY (run_id, metric_id)
);
CREATE INDEX run_values_metric ON run_values (metric_id, run_id);

-- API tokens: only a SHA-256 of the secret is stored.
CREATE TABLE api_tokens (
	id          bigserial PRIMARY KEY,
	name        text NOT NULL UNIQUE,
	scope       text NOT NULL CHECK (scope IN ('worker', 'submit', 'read', 'admin')),
	secret_sha256 bytea NOT NULL,
	created_at  timestamptz NOT NULL DEFAULT now(),
	revoked_at  timestamptz,
	last_used   timestamptz
);

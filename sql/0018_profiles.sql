-- regtrack schema, part 18: profiles (issue 22).
--
-- Monitors (LKP's name for what runs beside a case: perf-profile,
-- perf-stat) are part of a setup's identity: perf perturbs the case, so a
-- profiled run never shares a series or a comparison with an unprofiled
-- one. setups.monitors is the sorted, deduplicated names joined by ','
-- ('' = none; lib/profile.h monitors_from_json), in the unique key.
ALTER TABLE setups ADD COLUMN monitors text NOT NULL DEFAULT '';
DROP INDEX setups_key;
CREATE UNIQUE INDEX setups_key ON setups (testcase_id, md5(params_key), kconfig, compiler,
					  tbox_group, mode, monitors);
-- (run_profiles is read by its key, runs.id, from the runs of a commit
-- (runs_commit) or of a job (runs_job): no other index is needed.)

-- The monitors a job runs (same form), given to the worker in the lease
-- reply. A bisect's monitors are those of its profile round (first bad and
-- its parent once the answer is found, server/bisect_step.c); the runs that
-- decide a bisect stay unprofiled. A request's and a plan's (in their
-- spec) go to each of their jobs.
ALTER TABLE jobs ADD COLUMN monitors text NOT NULL DEFAULT '';
ALTER TABLE bisects ADD COLUMN monitors text NOT NULL DEFAULT 'perf-profile';

-- One profiled run's folded stacks (lib/profile.h): event (cpu-clock),
-- samples as perf counted them, the folded text (at most 4 MiB,
-- RESULTDOC_MAX_PROFILE_BYTES). Stored in the run's transaction
-- (server/ingest.c).
CREATE TABLE run_profiles (
	run_id  bigint PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
	event   text NOT NULL,
	samples bigint NOT NULL CHECK (samples >= 0),
	folded  text NOT NULL
);
-- Folded stacks repeat their prefixes line after line: lz4 compresses them
-- about as well as pglz at several times the speed (both ways). PostgreSQL
-- 15 has lz4 when built --with-lz4 (Debian's and the PGDG packages are);
-- a server without it keeps the default TOAST compression, pglz.
DO $$
BEGIN
	IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression'
		   AND 'lz4' = ANY (enumvals)) THEN
		ALTER TABLE run_profiles ALTER COLUMN folded SET COMPRESSION lz4;
	END IF;
END $$;


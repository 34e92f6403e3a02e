-- Issue 23, identical images. The worker builds reproducibly (fixed
-- KBUILD_BUILD_TIMESTAMP/USER/HOST/VERSION) and sends the SHA-256 of the
-- image it booted with each run ("image_sha256") and what of the host can
-- move a metric ("host_fingerprint": cpu_model, microcode, cpufreq_governor,
-- kernel_release, cmdline). Both arrive among a result document's unknown
-- fields (runs.extra: documents stay stored as sent); the columns are
-- generated from it, so every writer of runs keeps its INSERT.
ALTER TABLE runs
	ADD COLUMN image_sha256 text GENERATED ALWAYS AS (extra->>'image_sha256') STORED,
	ADD COLUMN host_fingerprint jsonb GENERATED ALWAYS AS (extra->'host_fingerprint') STORED;
CREATE INDEX runs_image ON runs (commit_id, image_sha256) WHERE image_sha256 IS NOT NULL;

-- A job's image (its completion's "image_sha256"), and for outcome
-- 'same-image' (built, not booted: its image equals one of the lease's
-- skip_images) the commit whose image it equals.
ALTER TABLE jobs
	ADD COLUMN image_sha256 text CHECK (image_sha256 ~ '^[0-9a-f]{64}$'),
	ADD COLUMN same_image_as text CHECK (same_image_as ~ '^[0-9a-f]{40}$');

-- A bisect whose change lies between identical images ends done with
-- outcome 'environment' (lib/bisect/plan.h): no commit is named, the
-- candidates of that image are kept in ambiguous_ids' place.
ALTER TABLE bisects DROP CONSTRAINT IF EXISTS bisects_outcome_check;
ALTER TABLE bisects ADD CONSTRAINT bisects_outcome_check
	CHECK (outcome IN ('found', 'ambiguous', 'environment'));

-- A detected step whose two sides ran on hosts with different fingerprints
-- (the commits either side of it: {"fields": [...], "before": [...],
-- "after": [...]}, lib/hostfp.h) is a change of environment: shown with
-- the record, and never bisected automatically (no commit is blamed).
ALTER TABLE regressions ADD COLUMN environment jsonb;

-- The top-level areas a commit touched when none of them is built into
-- the kernel of kernel arch karch ('x86', 'arm64'; NULL: host mode, no arch
-- is left out): every file under Documentation/, tools/ or arch/OTHER/;
-- NULL when a file is elsewhere, or the files are not collected. A first
-- bad commit flagged so is suspect (shown with the bisect and in its mail).
CREATE FUNCTION outside_build_areas(cid bigint, karch text) RETURNS text[]
LANGUAGE sql STABLE AS $$
	SELECT CASE WHEN count(*) > 0 AND bool_and(path LIKE 'Documentation/%'
		OR path LIKE 'tools/%' OR (path LIKE 'arch/%/%' AND karch IS NOT NULL
		AND split_part(path, '/', 2) <> karch))
	THEN (SELECT array_agg(DISTINCT CASE WHEN f.path LIKE 'arch/%' THEN 'arch/' ||
		split_part(f.path, '/', 2) || '/' ELSE split_part(f.path, '/', 1) || '/' END)
		FROM commit_files f WHERE f.commit_id = cid) END
	FROM commit_files WHERE commit_id = cid
$$;

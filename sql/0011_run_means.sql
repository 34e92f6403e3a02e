-- regtrack schema, part 11: each run's means in one row, for the compare.
--
-- GET /api/v1/compare of 2 commits x 6 runs x 5,000 metrics read 60,000
-- run_values rows and aggregated them per (setup, metric): 35 ms of
-- PostgreSQL on the bench machine before the server did anything (make
-- bench, issue 11). run_means holds the same numbers as one row per run:
-- metric_ids sorted ascending and means[i] = run_values.mean of
-- (run_id, metric_ids[i]), only the metrics whose mean is not NULL. A
-- compare now reads 12 rows (binary, server/api_compare.c) and merges
-- the sorted id lists itself.
--
-- run_values stays the source of truth (series, detection, bisect and the
-- run's page read it); run_means is derived from it by the statement-level
-- triggers below, so every writer keeps it right without knowing of it:
-- the ingest's COPY, hand-made rows in tests and bench, updates and
-- deletes (also the cascade from runs). A run whose rows arrive in one
-- statement (the ingest: one COPY per document) costs one aggregate over
-- that statement's rows; a run written again is recomputed from
-- run_values.
CREATE TABLE run_means (
	run_id      bigint PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
	metric_ids  integer[] NOT NULL,
	means       double precision[] NOT NULL
);
-- read whole, never searched inside: skip the compression on write and the
-- decompression on every compare (5,000 means are 40 kB, out of line)
ALTER TABLE run_means ALTER COLUMN metric_ids SET STORAGE EXTERNAL;
ALTER TABLE run_means ALTER COLUMN means SET STORAGE EXTERNAL;

-- the runs touched by a statement: recompute them from run_values
CREATE FUNCTION run_means_recompute(ids bigint[]) RETURNS void LANGUAGE sql AS $$
	DELETE FROM run_means WHERE run_id = ANY (ids);
	INSERT INTO run_means (run_id, metric_ids, means)
	SELECT v.run_id, array_agg(v.metric_id ORDER BY v.metric_id),
	       array_agg(v.mean ORDER BY v.metric_id)
	FROM run_values v
	WHERE v.run_id = ANY (ids) AND v.mean IS NOT NULL
	GROUP BY v.run_id;
$$;

CREATE FUNCTION run_means_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	again bigint[];
BEGIN
	-- runs that had means before this statement: the whole run again
	SELECT array_agg(d.run_id) INTO again
	FROM (SELECT DISTINCT run_id FROM new_rows) d
	WHERE EXISTS (SELECT 1 FROM run_means m WHERE m.run_id = d.run_id);
	-- the others (the ingest's case: a new run, all its rows in one COPY)
	-- straight from the statement's rows
	INSERT INTO run_means (run_id, metric_ids, means)
	SELECT n.run_id, array_agg(n.metric_id ORDER BY n.metric_id),
	       array_agg(n.mean ORDER BY n.metric_id)
	FROM new_rows n
	WHERE n.mean IS NOT NULL AND (again IS NULL OR n.run_id <> ALL (again))
	GROUP BY n.run_id;
	IF again IS NOT NULL THEN
		PERFORM run_means_recompute(again);
	END IF;
	RETURN NULL;
END
$$;

CREATE FUNCTION run_means_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM run_means_recompute(ARRAY(SELECT DISTINCT run_id FROM new_rows
					  UNION SELECT DISTINCT run_id FROM old_rows));
	RETURN NULL;
END
$$;

CREATE FUNCTION run_means_after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM run_means_recompute(ARRAY(SELECT DISTINCT run_id FROM old_rows));
	RETURN NULL;
END
$$;

CREATE TRIGGER run_means_insert AFTER INSERT ON run_values
	REFERENCING NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION run_means_after_insert();
CREATE TRIGGER run_means_update AFTER UPDATE ON run_values
	REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION run_means_after_update();
CREATE TRIGGER run_means_delete AFTER DELETE ON run_values
	REFERENCING OLD TABLE AS old_rows
	FOR EACH STATEMENT EXECUTE FUNCTION run_means_after_delete();

-- the runs already stored
INSERT INTO run_means (run_id, metric_ids, means)
SELECT v.run_id, array_agg(v.metric_id ORDER BY v.metric_id),
       array_agg(v.mean ORDER BY v.metric_id)
FROM run_values v WHERE v.mean IS NOT NULL
GROUP BY v.run_id;
ANALYZE run_means;

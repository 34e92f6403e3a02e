-- regtrack schema, part 6: what `make bench` (issue 11) found slow.
--
-- run_values.mean: the run's mean over its iterations (avg(vals): the sum in
-- iteration order divided by the count, as PostgreSQL's avg(float8)), the one
-- number per run that compare, series, detection and bisect use as the
-- sample. Computing it per row with (SELECT avg(x) FROM unnest(vals) x) in
-- every read was a subplan per row (60,000 in one compare). The server's
-- ingest sends it with the row (server/ingest.c); any other writer (tests,
-- bench, hand-made rows) leaves it NULL and the trigger below fills it in.
-- NULL only when vals is empty. The backfill below writes a new version of
-- every row: on a large database, VACUUM run_values after this migration
-- (it cannot run inside the migration's transaction).
ALTER TABLE run_values ADD COLUMN mean double precision;
UPDATE run_values SET mean = (SELECT avg(x) FROM unnest(vals) x);

CREATE FUNCTION run_values_fill_mean() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	NEW.mean := (SELECT avg(x) FROM unnest(NEW.vals) x);
	RETURN NEW;
END
$$;

-- the WHEN clauses keep the function off the ingest path (mean given)
CREATE TRIGGER run_values_mean_insert BEFORE INSERT ON run_values
	FOR EACH ROW WHEN (NEW.mean IS NULL) EXECUTE FUNCTION run_values_fill_mean();
CREATE TRIGGER run_values_mean_update BEFORE UPDATE OF vals ON run_values
	FOR EACH ROW WHEN (NEW.vals IS DISTINCT FROM OLD.vals AND
			   NEW.mean IS NOT DISTINCT FROM OLD.mean)
	EXECUTE FUNCTION run_values_fill_mean();

-- GET /api/v1/trees counts each tree's commits; import and bisect look
-- commits up by tree too.
CREATE INDEX commits_tree ON commits (tree_id);

ANALYZE run_values;

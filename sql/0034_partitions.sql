-- regtrack schema, part 34: run_values and run_means partitioned by month,
-- and retention of raw values by partition.
--
-- The two tables grow with every run (one run_values row per metric of a
-- run, one run_means row per run); everything else grows with setups,
-- commits or people. Both are now partitioned by RANGE of stored_on, the
-- UTC day the values were stored (runs.received_at's day: the ingest writes
-- a run and its values in one transaction and stored_on defaults to that
-- transaction's now()), one partition per calendar month:
-- run_values_yYYYYmMM, run_means_yYYYYmMM. A date costs no space: it sits in
-- the 4 bytes of alignment after metric_id (run_values) and run_id's
-- neighbour (run_means).
--
-- Months are made ahead by regtrack_partitions() (this migration, then the
-- server's retention pass, server/retention.c); a row whose month has no
-- partition yet goes to the _default partition and is moved into its month
-- when that month is made, so no write ever fails for want of a partition.
--
-- regtrack_retention(raw_days) summarises each month of run_values that
-- ended more than raw_days ago: every row keeps its run, metric and mean,
-- and a row with several replicates keeps their mean as its one value. The
-- month is rewritten into a new table in (metric_id, run_id) order and
-- swapped in (DETACH, ATTACH), so no dead rows are left behind, one
-- metric's history lies on few pages and the copy is frozen once. run_means
-- is never summarised. Compare, series, detection, bisect and the pages read
-- the means only (run_values.mean, run_means), so they answer the same
-- before and after; a run's page shows the summarised row's one value.
--
-- Keys: a partitioned table's unique keys must hold the partition key, so
-- the keys are (run_id, metric_id, stored_on) and (run_id, stored_on). A
-- run's rows all carry its one stored_on (the same transaction; the
-- triggers below carry it into run_means), so these are still one row per
-- (run, metric) and per run. run_means.stored_on is always the UTC day of
-- runs.received_at (the triggers read it there); run_values.stored_on is
-- the same day when a run and its values are written together (the ingest).
--
-- On an existing database this copies both tables (minutes for 10^8
-- values, under the migration's lock); VACUUM ANALYZE afterwards.

ALTER TABLE run_values RENAME TO run_values_old;
ALTER TABLE run_values_old RENAME CONSTRAINT run_values_pkey TO run_values_old_pkey;
ALTER INDEX run_values_metric RENAME TO run_values_old_metric;
DROP TRIGGER run_means_insert ON run_values_old;
DROP TRIGGER run_means_update ON run_values_old;
DROP TRIGGER run_means_delete ON run_values_old;
DROP TRIGGER run_values_mean_insert ON run_values_old;
DROP TRIGGER run_values_mean_update ON run_values_old;
ALTER TABLE run_means RENAME TO run_means_old;
ALTER TABLE run_means_old RENAME CONSTRAINT run_means_pkey TO run_means_old_pkey;

CREATE TABLE run_values (
	run_id     bigint NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	metric_id  integer NOT NULL REFERENCES metrics(id),
	stored_on  date NOT NULL DEFAULT (now() AT TIME ZONE 'UTC')::date,
	vals       double precision[] NOT NULL,
	mean       double precision,
	PRIMARY KEY (run_id, metric_id, stored_on)
) PARTITION BY RANGE (stored_on);
-- as sql/0010: one metric's means by an index-only scan
CREATE INDEX run_values_metric ON run_values (metric_id, run_id) INCLUDE (mean);
CREATE TABLE run_values_default PARTITION OF run_values DEFAULT;

CREATE TABLE run_means (
	run_id      bigint NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	stored_on   date NOT NULL DEFAULT (now() AT TIME ZONE 'UTC')::date,
	metric_ids  integer[] NOT NULL,
	means       double precision[] NOT NULL,
	PRIMARY KEY (run_id, stored_on)
) PARTITION BY RANGE (stored_on);
CREATE TABLE run_means_default PARTITION OF run_means DEFAULT;

-- months of run_values already summarised by regtrack_retention()
CREATE TABLE run_values_summarised (
	month          date PRIMARY KEY,
	summarised_at  timestamptz NOT NULL DEFAULT now(),
	nr_rows        bigint NOT NULL,
	nr_vals_before bigint NOT NULL
);

-- The month starting at m (a first of month) of table tbl (run_values or
-- run_means): made when missing, with the rows the default partition holds
-- for it moved in (statement triggers on the parent do not fire: the rows
-- stay what they were). Returns whether it was made.
CREATE FUNCTION regtrack_partition_month(tbl text, m date) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
	part text := format('%s_y%sm%s', tbl, to_char(m, 'YYYY'), to_char(m, 'MM'));
BEGIN
	IF m <> date_trunc('month', m)::date THEN
		RAISE EXCEPTION 'partition month "%" is not a first of month', m;
	END IF;
	IF to_regclass(part) IS NOT NULL THEN
		RETURN false;
	END IF;
	-- an insert-only table: vacuum after 1 % new rows so that index-only
	-- scans of the current month find its pages all-visible
	EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS) WITH '
		       '(autovacuum_vacuum_insert_scale_factor = 0.01, '
		       'autovacuum_vacuum_scale_factor = 0.05)', part, tbl);
	EXECUTE format('WITH moved AS (DELETE FROM %I WHERE stored_on >= %L AND '
		       'stored_on < %L RETURNING *) INSERT INTO %I SELECT * FROM moved',
		       tbl || '_default', m, (m + interval '1 month')::date, part);
	EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)',
		       tbl, part, m, (m + interval '1 month')::date);
	RETURN true;
END
$$;

-- Both tables' months from this one through ahead months later, and every
-- month that has rows in a default partition. Returns how many partitions
-- were made.
CREATE FUNCTION regtrack_partitions(ahead integer) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
	m date;
	t text;
	n integer := 0;
BEGIN
	FOREACH t IN ARRAY ARRAY['run_values', 'run_means'] LOOP
		FOR m IN EXECUTE format(
			'SELECT DISTINCT date_trunc(''month'', stored_on)::date FROM %I '
			'UNION SELECT (date_trunc(''month'', now() AT TIME ZONE ''UTC'') + '
			'make_interval(months => g))::date FROM generate_series(0, $1) g ORDER BY 1',
			t || '_default') USING ahead LOOP
			IF regtrack_partition_month(t, m) THEN
				n := n + 1;
			END IF;
		END LOOP;
	END LOOP;
	RETURN n;
END
$$;

-- Summarises every month of run_values that ended more than raw_days UTC
-- days ago and is not summarised yet (see the top of this file); raw_days
-- <= 0 keeps everything. Returns the months summarised. Takes an ACCESS
-- EXCLUSIVE lock on run_values for the swap of each month (reads wait for
-- it, not for the copy).
CREATE FUNCTION regtrack_retention(raw_days integer) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
	cutoff date := (now() AT TIME ZONE 'UTC')::date - raw_days;
	p record;
	m date;
	tmp text;
	nrows bigint;
	nvals bigint;
	n integer := 0;
BEGIN
	IF raw_days <= 0 THEN
		RETURN 0;
	END IF;
	PERFORM regtrack_partitions(2);
	FOR p IN SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
		 WHERE i.inhparent = 'run_values'::regclass
		   AND c.relname ~ '^run_values_y[0-9]{4}m[0-9]{2}$' ORDER BY c.relname LOOP
		m := to_date(substr(p.relname, 13), 'YYYY"m"MM');
		CONTINUE WHEN (m + interval '1 month')::date > cutoff
			OR EXISTS (SELECT 1 FROM run_values_summarised s WHERE s.month = m);
		tmp := p.relname || '_s';
		EXECUTE format('CREATE TABLE %I (LIKE run_values INCLUDING DEFAULTS)', tmp);
		EXECUTE format('INSERT INTO %I (run_id, metric_id, stored_on, vals, mean) '
			       'SELECT run_id, metric_id, stored_on, CASE WHEN cardinality(vals) > 1 '
			       'THEN ARRAY[mean] ELSE vals END, mean FROM %I ORDER BY metric_id, run_id',
			       tmp, p.relname);
		GET DIAGNOSTICS nrows = ROW_COUNT;
		EXECUTE format('SELECT coalesce(sum(cardinality(vals)), 0) FROM %I', p.relname)
			INTO nvals;
		EXECUTE format('ALTER TABLE run_values DETACH PARTITION %I', p.relname);
		EXECUTE format('DROP TABLE %I', p.relname);
		EXECUTE format('ALTER TABLE %I RENAME TO %I', tmp, p.relname);
		EXECUTE format('ALTER TABLE run_values ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)',
			       p.relname, m, (m + interval '1 month')::date);
		INSERT INTO run_values_summarised (month, nr_rows, nr_vals_before)
		VALUES (m, nrows, nvals);
		n := n + 1;
	END LOOP;
	RETURN n;
END
$$;

-- the months of the rows already stored, then two ahead
SELECT regtrack_partition_month('run_values', x.m), regtrack_partition_month('run_means', x.m)
FROM (SELECT DISTINCT date_trunc('month', received_at AT TIME ZONE 'UTC')::date AS m
      FROM runs) x;
SELECT regtrack_partitions(2);

INSERT INTO run_values (run_id, metric_id, stored_on, vals, mean)
SELECT v.run_id, v.metric_id, (r.received_at AT TIME ZONE 'UTC')::date, v.vals, v.mean
FROM run_values_old v JOIN runs r ON r.id = v.run_id;
INSERT INTO run_means (run_id, stored_on, metric_ids, means)
SELECT m.run_id, (r.received_at AT TIME ZONE 'UTC')::date, m.metric_ids, m.means
FROM run_means_old m JOIN runs r ON r.id = m.run_id;
DROP TABLE run_values_old;
DROP TABLE run_means_old;

-- as sql/0006: the mean of rows written without one
CREATE TRIGGER run_values_mean_insert BEFORE INSERT ON run_values
	FOR EACH ROW WHEN (NEW.mean IS NULL) EXECUTE FUNCTION run_values_fill_mean();
CREATE TRIGGER run_values_mean_update BEFORE UPDATE OF vals ON run_values
	FOR EACH ROW WHEN (NEW.vals IS DISTINCT FROM OLD.vals AND
			   NEW.mean IS NOT DISTINCT FROM OLD.mean)
	EXECUTE FUNCTION run_values_fill_mean();

-- as sql/0011, with stored_on: always the UTC day of runs.received_at, so
-- that a read from runs can name the one partition that holds a run's
-- means (the compare joins on run_id and stored_on: one index probe per
-- run, where run_id alone probed every month)
CREATE OR REPLACE FUNCTION run_means_recompute(ids bigint[]) RETURNS void LANGUAGE sql AS $$
	DELETE FROM run_means WHERE run_id = ANY (ids);
	INSERT INTO run_means (run_id, stored_on, metric_ids, means)
	SELECT v.run_id, (min(r.received_at) AT TIME ZONE 'UTC')::date,
	       array_agg(v.metric_id ORDER BY v.metric_id), array_agg(v.mean ORDER BY v.metric_id)
	FROM run_values v JOIN runs r ON r.id = v.run_id
	WHERE v.run_id = ANY (ids) AND v.mean IS NOT NULL
	GROUP BY v.run_id;
$$;

CREATE OR REPLACE FUNCTION run_means_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	again bigint[];
BEGIN
	SELECT array_agg(d.run_id) INTO again
	FROM (SELECT DISTINCT run_id FROM new_rows) d
	WHERE EXISTS (SELECT 1 FROM run_means m WHERE m.run_id = d.run_id);
	INSERT INTO run_means (run_id, stored_on, metric_ids, means)
	SELECT n.run_id, (min(r.received_at) AT TIME ZONE 'UTC')::date,
	       array_agg(n.metric_id ORDER BY n.metric_id), array_agg(n.mean ORDER BY n.metric_id)
	FROM new_rows n JOIN runs r ON r.id = n.run_id
	WHERE n.mean IS NOT NULL AND (again IS NULL OR n.run_id <> ALL (again))
	GROUP BY n.run_id;
	IF again IS NOT NULL THEN
		PERFORM run_means_recompute(again);
	END IF;
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

ANALYZE run_values;
ANALYZE run_means;

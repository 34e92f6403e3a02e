-- regtrack schema, part 39: retention drops whole months of raw values, and
-- every reader of a run's values reads the runs of a dropped month from
-- run_means.
--
-- sql/0034 summarised an old month of run_values by rewriting it; its bytes
-- stayed. Now a month of run_values that ended more than retention_raw_days
-- ago is recorded in run_values_dropped, then detached (DETACH PARTITION
-- ... CONCURRENTLY: a SHARE UPDATE EXCLUSIVE lock on run_values, which
-- neither reads nor writes wait for) and dropped (its files unlinked; a lock
-- on the detached table only). server/db/retention.c drives the steps, as
-- DETACH ... CONCURRENTLY cannot run inside a function or a transaction.
--
-- One rule says where a run's values are: regtrack_raw_from(), the first
-- instant whose month is still raw (the month after the newest dropped
-- one, -infinity before any drop). A run received before it is read from
-- run_means (its means; a metric's one value is its mean), a run received
-- at or after it from run_values. run_points(run, received_at) applies the
-- rule to one run; the series, whose raw part is an index-only scan by
-- metric, applies it to runs.received_at (server/db/stmts_series.c). The
-- record comes first, so from its commit on readers take the month's runs
-- from run_means while the detach waits for the queries that still read
-- the partition: no run is read twice or missed.
--
-- PostgreSQL (15, Debian 12) refuses DETACH ... CONCURRENTLY on a table
-- with a default partition, so run_values_default goes: its rows move to
-- their months first. A write to a month without its partition fails;
-- regtrack_partitions() makes this month and two ahead (this migration,
-- the server's start and every six hours). run_means keeps its default
-- partition: it is never detached.

DROP FUNCTION regtrack_retention(integer);
DROP TABLE run_values_summarised;

-- the months of run_values dropped, oldest first; what each held
CREATE TABLE run_values_dropped (
	month       date PRIMARY KEY CHECK (extract(day FROM month) = 1),
	dropped_at  timestamptz NOT NULL DEFAULT now(),
	nr_rows     bigint NOT NULL,
	nr_vals     bigint NOT NULL,
	bytes       bigint NOT NULL
);

-- The first instant (UTC) whose runs keep their raw values; runs received
-- before it are read from run_means. Call it as (SELECT regtrack_raw_from())
-- so that a query evaluates it once.
CREATE FUNCTION regtrack_raw_from() RETURNS timestamptz
LANGUAGE sql STABLE PARALLEL SAFE AS $$
	SELECT coalesce((max(month) + interval '1 month') AT TIME ZONE 'UTC', '-infinity')
	FROM run_values_dropped
$$;

-- The values of run rid received at received (runs.id, runs.received_at):
-- one row per metric with its values and their mean; for a run of a
-- dropped month, each metric's mean as its one value (metrics without a
-- mean are gone). Both parts name the run's month, so each probes one
-- partition. A plain SQL function: the planner inlines it, e.g.
-- JOIN LATERAL run_points(r.id, r.received_at) v ON true.
CREATE FUNCTION run_points(rid bigint, received timestamptz)
RETURNS TABLE (metric_id integer, vals double precision[], mean double precision)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
	SELECT v.metric_id, v.vals, v.mean FROM run_values v
	WHERE v.run_id = rid AND received >= (SELECT regtrack_raw_from())
	  AND v.stored_on >= date_trunc('month', received AT TIME ZONE 'UTC')::date
	  AND v.stored_on < (date_trunc('month', received AT TIME ZONE 'UTC') +
			     interval '1 month')::date
	UNION ALL
	SELECT u.metric_id, ARRAY[u.mean], u.mean
	FROM run_means m CROSS JOIN LATERAL unnest(m.metric_ids, m.means) AS u(metric_id, mean)
	WHERE m.run_id = rid AND received < (SELECT regtrack_raw_from())
	  AND m.stored_on = (received AT TIME ZONE 'UTC')::date
$$;

-- as sql/0034, for a table with or without a default partition
CREATE OR REPLACE FUNCTION regtrack_partition_month(tbl text, m date) RETURNS boolean
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
	IF to_regclass(tbl || '_default') IS NOT NULL THEN
		EXECUTE format('WITH moved AS (DELETE FROM %I WHERE stored_on >= %L AND '
			       'stored_on < %L RETURNING *) INSERT INTO %I SELECT * FROM moved',
			       tbl || '_default', m, (m + interval '1 month')::date, part);
	END IF;
	EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)',
		       tbl, part, m, (m + interval '1 month')::date);
	RETURN true;
END
$$;

-- as sql/0034: both tables' months from this one through ahead months
-- later, and every month run_means_default holds rows of; never a month of
-- run_values already dropped. Returns how many partitions were made.
CREATE OR REPLACE FUNCTION regtrack_partitions(ahead integer) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
	m date;
	t text;
	n integer := 0;
BEGIN
	FOREACH t IN ARRAY ARRAY['run_values', 'run_means'] LOOP
		FOR m IN SELECT (date_trunc('month', now() AT TIME ZONE 'UTC') +
				 make_interval(months => g))::date FROM generate_series(0, ahead) g
			 UNION SELECT DISTINCT date_trunc('month', stored_on)::date
			 FROM run_means_default WHERE t = 'run_means' ORDER BY 1 LOOP
			CONTINUE WHEN t = 'run_values' AND m < (SELECT regtrack_raw_from());
			IF regtrack_partition_month(t, m) THEN
				n := n + 1;
			END IF;
		END LOOP;
	END LOOP;
	RETURN n;
END
$$;

-- The steps of one retention pass (server/db/retention.c runs them, each
-- in its own statement): every month of run_values that ended more than
-- raw_days UTC days ago is recorded in run_values_dropped (this function's
-- transaction: from its commit on, readers take those runs from run_means)
-- and returned as (partition, 'detach'); a month whose detach was
-- interrupted as (partition, 'finalize'); a dropped month's table left
-- detached as (table, 'drop'). Oldest first. raw_days <= 0: nothing.
CREATE FUNCTION regtrack_retention_steps(raw_days integer)
RETURNS TABLE (relname text, step text)
LANGUAGE plpgsql AS $$
DECLARE
	cutoff date := (now() AT TIME ZONE 'UTC')::date - raw_days;
	p record;
	m date;
	nrows bigint;
	nvals bigint;
BEGIN
	IF raw_days <= 0 THEN
		RETURN;
	END IF;
	FOR p IN SELECT c.relname::text AS name, i.inhdetachpending AS pending, i.inhrelid AS oid
		 FROM pg_class c LEFT JOIN pg_inherits i ON i.inhrelid = c.oid
		      AND i.inhparent = 'run_values'::regclass
		 WHERE c.relname ~ '^run_values_y[0-9]{4}m[0-9]{2}$' AND c.relkind = 'r'
		   AND c.relnamespace = (SELECT relnamespace FROM pg_class
					 WHERE oid = 'run_values'::regclass)
		 ORDER BY c.relname LOOP
		m := to_date(substr(p.name, 13), 'YYYY"m"MM');
		IF p.oid IS NULL THEN
			-- detached: dropped once recorded, else not ours to drop
			IF EXISTS (SELECT 1 FROM run_values_dropped d WHERE d.month = m) THEN
				relname := p.name; step := 'drop';
				RETURN NEXT;
			END IF;
			CONTINUE;
		END IF;
		CONTINUE WHEN (m + interval '1 month')::date > cutoff;
		IF NOT EXISTS (SELECT 1 FROM run_values_dropped d WHERE d.month = m) THEN
			EXECUTE format('SELECT count(*), coalesce(sum(cardinality(vals)), 0) FROM %I',
				       p.name) INTO nrows, nvals;
			INSERT INTO run_values_dropped (month, nr_rows, nr_vals, bytes)
			VALUES (m, nrows, nvals, pg_total_relation_size(p.name::regclass));
		END IF;
		relname := p.name;
		step := CASE WHEN p.pending THEN 'finalize' ELSE 'detach' END;
		RETURN NEXT;
	END LOOP;
END
$$;

-- run_values without its default partition (see the top of this file):
-- its rows to their months first
SELECT regtrack_partition_month('run_values', x.m)
FROM (SELECT DISTINCT date_trunc('month', stored_on)::date AS m FROM run_values_default) x;
ALTER TABLE run_values DETACH PARTITION run_values_default;
DROP TABLE run_values_default;
SELECT regtrack_partitions(2);

/* Statements of health, machines, testcases, metrics (api/meta.c, api/health.c); see db.h. */
#include "server/db/stmts.h"

const struct db_stmt_def db_stmts_meta[DB_NR_STMTS] = {
	[ST_HEALTH] = { "health", "SELECT 1" },
	[ST_MACHINES_JSON] = { "machines_json",
			       "SELECT coalesce(json_agg(x ORDER BY x.hostname, x.id), '[]')::text FROM ("
			       "SELECT m.id, m.hostname, m.arch, m.tbox_group, m.nr_cpus, m.memory_mb, m.cpu_model, "
			       "m.capabilities, m.fingerprint, m.cases, m.registered_at, m.last_seen, "
			       "(SELECT count(*) FROM runs r WHERE r.machine_id = m.id) AS runs "
			       "FROM machines m) x" },
	[ST_METRICS_JSON] = { "metrics_json",
			      "SELECT coalesce(json_agg(x ORDER BY x.name), '[]')::text FROM ("
			      "SELECT name, unit, higher_is_better, is_monitor, source FROM metrics "
			      "WHERE $1::text IS NULL OR starts_with(name, $1)) x" },
	[ST_METRIC_SET] = { "metric_set",
			    "INSERT INTO metrics (name, unit, higher_is_better, is_monitor, source) "
			    "VALUES ($1, coalesce($2, ''), $3::boolean, coalesce($4::boolean, false), 'api') "
			    "ON CONFLICT (name) DO UPDATE SET unit = coalesce($2, metrics.unit), "
			    "higher_is_better = coalesce($3::boolean, metrics.higher_is_better), "
			    "is_monitor = coalesce($4::boolean, metrics.is_monitor), source = 'api' "
			    "RETURNING name, unit, higher_is_better, is_monitor, source" },
	/*
	 * a cheap fingerprint of the queue: long-poll waiters retry only when it
	 * changed; counted up to 1000 (index-only), whatever the queue's length
	 */
	[ST_QUEUE_COUNT] = { "queue_count",
			     "SELECT (SELECT count(*) FROM (SELECT 1 FROM jobs WHERE state = 'queued' "
			     "LIMIT 1000) q), coalesce((SELECT max(id) FROM jobs WHERE state = 'queued'), 0)" },
	[ST_TESTCASES_JSON] = { "testcases_json",
				"SELECT coalesce(json_agg(x ORDER BY x.name), '[]')::text FROM ("
				"SELECT t.name, (SELECT count(*) FROM setups s WHERE s.testcase_id = t.id) AS setups, "
				"(SELECT coalesce(json_agg(json_build_object('id', s.id, 'params', s.params, "
				"'kconfig', s.kconfig, 'compiler', s.compiler, 'tbox_group', s.tbox_group, "
				"'mode', s.mode) ORDER BY s.id), '[]') FROM setups s WHERE s.testcase_id = t.id) "
				"AS setup_list FROM testcases t) x" },
	/*
	 * GET /metrics: (name, label, value) rows. Per target (tbox_group, else
	 * arch:ARCH, else any) the queued jobs, the queued tracking jobs and the
	 * running jobs; per tree with a poll its polls, the last poll's duration
	 * and age, the failures in a row and the seconds to the next poll.
	 */
	[ST_TRACK_GAUGES] = { "track_gauges",
			      "WITH q AS (SELECT coalesce(tbox_group, 'arch:' || arch, 'any') AS tg, state, plan_id "
			      "FROM jobs WHERE state IN ('queued', 'leased')) "
			      "SELECT 'regtrack_queue_depth', tg, count(*) FILTER (WHERE state = 'queued')::float8 "
			      "FROM q GROUP BY tg "
			      "UNION ALL SELECT 'regtrack_queue_depth_tracking', tg, "
			      "count(*) FILTER (WHERE state = 'queued' AND plan_id IS NOT NULL)::float8 FROM q GROUP BY tg "
			      "UNION ALL SELECT 'regtrack_jobs_running', tg, count(*) FILTER (WHERE state = 'leased')::float8 "
			      "FROM q GROUP BY tg "
			      "UNION ALL SELECT 'regtrack_tree_polls_total', name, polls::float8 FROM trees WHERE polls > 0 "
			      "UNION ALL SELECT 'regtrack_tree_poll_duration_seconds', name, last_poll_ms / 1000.0 "
			      "FROM trees WHERE last_poll_ms IS NOT NULL "
			      "UNION ALL SELECT 'regtrack_tree_poll_age_seconds', name, "
			      "extract(epoch FROM now() - last_poll_at)::float8 FROM trees WHERE last_poll_at IS NOT NULL "
			      "UNION ALL SELECT 'regtrack_tree_poll_failures', name, poll_failures::float8 FROM trees "
			      "WHERE polls > 0 "
			      "UNION ALL SELECT 'regtrack_tree_next_poll_seconds', name, "
			      "greatest(0, extract(epoch FROM next_poll_at - now()))::float8 FROM trees "
			      "WHERE poll_s > 0 OR poll_requested_at IS NOT NULL "
			      "ORDER BY 1, 2" },
};

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
	/* a cheap fingerprint of the queue: long-poll waiters retry only when it changed */
	[ST_QUEUE_COUNT] = { "queue_count",
			     "SELECT count(*), coalesce(max(id), 0) FROM jobs WHERE state = 'queued'" },
	[ST_TESTCASES_JSON] = { "testcases_json",
				"SELECT coalesce(json_agg(x ORDER BY x.name), '[]')::text FROM ("
				"SELECT t.name, (SELECT count(*) FROM setups s WHERE s.testcase_id = t.id) AS setups, "
				"(SELECT coalesce(json_agg(json_build_object('id', s.id, 'params', s.params, "
				"'kconfig', s.kconfig, 'compiler', s.compiler, 'tbox_group', s.tbox_group, "
				"'mode', s.mode) ORDER BY s.id), '[]') FROM setups s WHERE s.testcase_id = t.id) "
				"AS setup_list FROM testcases t) x" },
};

/*
 * Every SQL statement the server prepares, in one table (see db.h).
 * Parameters are always $n; nothing is ever spliced into SQL text.
 */
#include "server/db.h"

#include "banned.h"

#define RUN_FILTERS(T, K, C, P, M) \
	"($" #T "::text IS NULL OR s.tbox_group = $" #T ") AND " \
	"($" #K "::text IS NULL OR s.kconfig = $" #K ") AND " \
	"($" #C "::text IS NULL OR s.compiler = $" #C ") AND " \
	"($" #P "::text IS NULL OR s.params_key = $" #P ") AND " \
	"($" #M "::text IS NULL OR s.mode = $" #M ")"

/* series order: the tree's history once known, then commit time, then first seen */
#define COMMIT_ORDER "c.topo_order NULLS LAST, c.commit_time NULLS LAST, c.first_seen, c.id"

const struct db_stmt_def db_stmts[DB_NR_STMTS] = {
	[ST_HEALTH] = { "health", "SELECT 1" },
	[ST_TOKEN_BY_ID] = { "token_by_id",
		"SELECT scope, encode(secret_sha256, 'hex'), revoked_at IS NOT NULL "
		"FROM api_tokens WHERE id = $1::bigint" },
	[ST_TOKEN_INSERT] = { "token_insert",
		"INSERT INTO api_tokens (name, scope, secret_sha256) "
		"VALUES ($1, $2, decode($3, 'hex')) RETURNING id" },
	[ST_TOKEN_REVOKE] = { "token_revoke",
		"UPDATE api_tokens SET revoked_at = now() "
		"WHERE name = $1 AND revoked_at IS NULL RETURNING id" },
	[ST_TREE_INSERT] = { "tree_insert",
		"INSERT INTO trees (name) VALUES ($1) ON CONFLICT (name) DO NOTHING RETURNING id" },
	[ST_TREE_ID] = { "tree_id", "SELECT id FROM trees WHERE name = $1" },
	[ST_TESTCASE_INSERT] = { "testcase_insert",
		"INSERT INTO testcases (name) VALUES ($1) ON CONFLICT (name) DO NOTHING RETURNING id" },
	[ST_TESTCASE_ID] = { "testcase_id", "SELECT id FROM testcases WHERE name = $1" },
	[ST_COMMIT_INSERT] = { "commit_insert",
		"INSERT INTO commits (sha, commit_time, subject, tree_id) "
		"VALUES ($1, $2::timestamptz, $3, $4::bigint) "
		"ON CONFLICT (sha) DO NOTHING RETURNING id" },
	[ST_COMMIT_ID] = { "commit_id", "SELECT id FROM commits WHERE sha = $1" },
	[ST_COMMIT_FILL] = { "commit_fill",
		"UPDATE commits SET commit_time = COALESCE(commit_time, $2::timestamptz), "
		"subject = COALESCE(subject, $3), tree_id = COALESCE(tree_id, $4::bigint) "
		"WHERE id = $1::bigint AND ((commit_time IS NULL AND $2::timestamptz IS NOT NULL) OR "
		"(subject IS NULL AND $3::text IS NOT NULL) OR "
		"(tree_id IS NULL AND $4::bigint IS NOT NULL))" },
	[ST_COMMIT_RESOLVE] = { "commit_resolve",
		"SELECT id, sha, subject FROM commits WHERE sha >= $1 AND sha < $1 || 'g' "
		"ORDER BY sha LIMIT 2" },
	[ST_MACHINE_INSERT] = { "machine_insert",
		"INSERT INTO machines (hostname, arch, tbox_group, nr_cpus, memory_mb, cpu_model) "
		"VALUES ($1, $2, $3, $4::integer, $5::bigint, $6) "
		"ON CONFLICT (hostname, arch, tbox_group) DO NOTHING RETURNING id" },
	[ST_MACHINE_ID] = { "machine_id",
		"SELECT id FROM machines WHERE hostname = $1 AND arch = $2 AND tbox_group = $3" },
	[ST_SETUP_INSERT] = { "setup_insert",
		"INSERT INTO setups (testcase_id, params, params_key, kconfig, compiler, tbox_group, mode) "
		"VALUES ($1::integer, $2::text::jsonb, $2::text, $3, $4, $5, $6) "
		"ON CONFLICT (testcase_id, params_key, kconfig, compiler, tbox_group, mode) "
		"DO NOTHING RETURNING id" },
	[ST_SETUP_ID] = { "setup_id",
		"SELECT id FROM setups WHERE testcase_id = $1::integer AND params_key = $2 AND "
		"kconfig = $3 AND compiler = $4 AND tbox_group = $5 AND mode = $6" },
	[ST_SETUP_GET] = { "setup_get",
		"SELECT t.name, s.params::text, s.kconfig, s.compiler, s.tbox_group, s.mode "
		"FROM setups s JOIN testcases t ON t.id = s.testcase_id WHERE s.id = $1::bigint" },
	[ST_RUN_INSERT] = { "run_insert",
		"INSERT INTO runs (run_id, job_id, commit_id, setup_id, machine_id, tree_id, branch, "
		"status, started_at, duration_s, doc_sha256, extra) "
		"VALUES ($1::uuid, $2::bigint, $3::bigint, $4::bigint, $5::bigint, $6::bigint, $7, $8, "
		"$9::timestamptz, $10::float8, decode($11, 'hex'), $12::jsonb) "
		"ON CONFLICT (run_id) DO NOTHING RETURNING id" },
	[ST_RUN_SHA] = { "run_sha",
		"SELECT encode(doc_sha256, 'hex') FROM runs WHERE run_id = $1::uuid" },
	[ST_METRICS_INSERT] = { "metrics_insert",
		"INSERT INTO metrics (name, unit, higher_is_better, is_monitor) "
		"SELECT * FROM unnest($1::text[], $2::text[], $3::bool[], $4::bool[]) "
		"ON CONFLICT (name) DO NOTHING" },
	[ST_VALUES_INSERT] = { "values_insert",
		"INSERT INTO run_values (run_id, metric_id, vals) "
		"SELECT $1::bigint, m.id, v.vals::float8[] "
		"FROM unnest($2::text[], $3::text[]) AS v (name, vals) "
		"JOIN metrics m ON m.name = v.name" },
	[ST_RUN_GET] = { "run_get",
		"SELECT r.id, r.run_id, c.sha, c.subject, t.name, s.params::text, s.kconfig, "
		"s.compiler, s.tbox_group, s.mode, r.status, "
		"to_char(r.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), "
		"r.duration_s, r.branch, tr.name, r.job_id, r.extra::text, "
		"to_char(r.received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), "
		"mc.hostname, mc.arch "
		"FROM runs r JOIN commits c ON c.id = r.commit_id JOIN setups s ON s.id = r.setup_id "
		"JOIN testcases t ON t.id = s.testcase_id LEFT JOIN trees tr ON tr.id = r.tree_id "
		"LEFT JOIN machines mc ON mc.id = r.machine_id WHERE r.run_id = $1::uuid" },
	[ST_RUN_VALUES] = { "run_values",
		"SELECT m.name, array_to_json(v.vals)::text FROM run_values v "
		"JOIN metrics m ON m.id = v.metric_id WHERE v.run_id = $1::bigint ORDER BY m.name" },
	/* $1 metric, $2 testcase, $3..$7 filters */
	[ST_SERIES] = { "series",
		"SELECT s.id, c.sha, c.subject, "
		"to_char(c.commit_time AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), "
		"r.run_id, (SELECT avg(x) FROM unnest(v.vals) x), array_to_json(v.vals)::text "
		"FROM metrics m JOIN run_values v ON v.metric_id = m.id "
		"JOIN runs r ON r.id = v.run_id JOIN setups s ON s.id = r.setup_id "
		"JOIN testcases t ON t.id = s.testcase_id JOIN commits c ON c.id = r.commit_id "
		"WHERE m.name = $1 AND t.name = $2 AND r.status = 'ok' AND "
		RUN_FILTERS(3, 4, 5, 6, 7)
		" ORDER BY s.id, " COMMIT_ORDER ", r.id" },
	/* $1 base commit id, $2 head commit id, $3 testcase, $4..$8 filters, $9 metric prefix */
	[ST_COMPARE] = { "compare",
		"SELECT r.setup_id, m.name, r.commit_id = $1::bigint, "
		"(SELECT avg(x) FROM unnest(v.vals) x), m.higher_is_better, m.unit, m.is_monitor "
		"FROM runs r JOIN run_values v ON v.run_id = r.id "
		"JOIN metrics m ON m.id = v.metric_id JOIN setups s ON s.id = r.setup_id "
		"JOIN testcases t ON t.id = s.testcase_id "
		"WHERE r.commit_id IN ($1::bigint, $2::bigint) AND r.status = 'ok' AND "
		"($3::text IS NULL OR t.name = $3) AND " RUN_FILTERS(4, 5, 6, 7, 8) " AND "
		"($9::text IS NULL OR starts_with(m.name, $9)) "
		"ORDER BY r.setup_id, m.name, r.id" },
	[ST_MACHINES_JSON] = { "machines_json",
		"SELECT coalesce(json_agg(x ORDER BY x.hostname, x.id), '[]')::text FROM ("
		"SELECT m.id, m.hostname, m.arch, m.tbox_group, m.nr_cpus, m.memory_mb, m.cpu_model, "
		"m.capabilities, m.fingerprint, m.registered_at, m.last_seen, "
		"(SELECT count(*) FROM runs r WHERE r.machine_id = m.id) AS runs "
		"FROM machines m) x" },
	[ST_TESTCASES_JSON] = { "testcases_json",
		"SELECT coalesce(json_agg(x ORDER BY x.name), '[]')::text FROM ("
		"SELECT t.name, (SELECT count(*) FROM setups s WHERE s.testcase_id = t.id) AS setups, "
		"(SELECT coalesce(json_agg(json_build_object('id', s.id, 'params', s.params, "
		"'kconfig', s.kconfig, 'compiler', s.compiler, 'tbox_group', s.tbox_group, "
		"'mode', s.mode) ORDER BY s.id), '[]') FROM setups s WHERE s.testcase_id = t.id) "
		"AS setup_list FROM testcases t) x" },
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
};

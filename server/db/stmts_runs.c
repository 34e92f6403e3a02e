/* Statements of ingest and run reads: testcases, commits, machines, setups, runs, metric names (ingest.c, api/results.c, api/runs.c); see db.h. */
#include "server/db/stmts.h"

const struct db_stmt_def db_stmts_runs[DB_NR_STMTS] = {
	[ST_COMMIT_FILL] = { "commit_fill",
			     "UPDATE commits SET commit_time = COALESCE(commit_time, $2::timestamptz), "
			     "subject = COALESCE(subject, $3), tree_id = COALESCE(tree_id, $4::bigint) "
			     "WHERE id = $1::bigint AND ((commit_time IS NULL AND $2::timestamptz IS NOT NULL) OR "
			     "(subject IS NULL AND $3::text IS NOT NULL) OR "
			     "(tree_id IS NULL AND $4::bigint IS NOT NULL))" },
	[ST_COMMIT_ID] = { "commit_id", "SELECT id FROM commits WHERE sha = $1" },
	[ST_COMMIT_INSERT] = { "commit_insert",
			       "INSERT INTO commits (sha, commit_time, subject, tree_id) "
			       "VALUES ($1, $2::timestamptz, $3, $4::bigint) "
			       "ON CONFLICT (sha) DO NOTHING RETURNING id" },
	[ST_COMMIT_RESOLVE] = { "commit_resolve",
				"SELECT id, sha, subject FROM commits WHERE sha >= $1 AND sha < $1 || 'g' "
				"ORDER BY sha LIMIT 2" },
	[ST_MACHINE_ID] = { "machine_id",
			    "SELECT id FROM machines WHERE hostname = $1 AND arch = $2 AND tbox_group = $3" },
	[ST_MACHINE_INSERT] = { "machine_insert",
				"INSERT INTO machines (hostname, arch, tbox_group, nr_cpus, memory_mb, cpu_model) "
				"VALUES ($1, $2, $3, $4::integer, $5::bigint, $6) "
				"ON CONFLICT (hostname, arch, tbox_group) DO NOTHING RETURNING id" },
	[ST_METRICS_INSERT] = { "metrics_insert",
				"INSERT INTO metrics (name, unit, higher_is_better, is_monitor) "
				"SELECT * FROM unnest($1::text[], $2::text[], $3::bool[], $4::bool[]) "
				"ON CONFLICT (name) DO NOTHING" },
	/* ids of known metric names (ingest resolves names, then COPYs run_values) */
	[ST_METRIC_IDS] = { "metric_ids",
			    "SELECT id, name FROM metrics WHERE name = ANY ($1::text[])" },
	/* the newest runs ($2 at most; $1, a state filter, is unused): the overview's last results */
	[ST_RUNS_RECENT_JSON] = { "runs_recent_json",
				  "SELECT coalesce(json_agg(x ORDER BY x.id DESC), '[]')::text FROM ("
				  "SELECT r.id, r.run_id, r.status, r.received_at, r.job_id, c.sha AS commit, "
				  "c.subject, t.name AS testcase, s.params, s.kconfig, s.compiler, s.tbox_group, s.mode, "
				  "(SELECT count(*) FROM run_points(r.id, r.received_at)) AS metrics "
				  "FROM runs r JOIN commits c ON c.id = r.commit_id JOIN setups s ON s.id = r.setup_id "
				  "JOIN testcases t ON t.id = s.testcase_id WHERE $1::text IS NULL "
				  "ORDER BY r.id DESC LIMIT $2::integer) x" },
	[ST_RUN_GET] = { "run_get",
			 "SELECT r.id, r.run_id, c.sha, c.subject, t.name, s.params::text, s.kconfig, "
			 "s.compiler, s.tbox_group, s.mode, r.status, "
			 "to_char(r.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), "
			 "r.duration_s, r.branch, tr.name, r.job_id, r.extra::text, "
			 "to_char(r.received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), "
			 "mc.hostname, mc.arch, s.monitors, "
			 "EXISTS (SELECT 1 FROM run_profiles p WHERE p.run_id = r.id) "
			 "FROM runs r JOIN commits c ON c.id = r.commit_id JOIN setups s ON s.id = r.setup_id "
			 "JOIN testcases t ON t.id = s.testcase_id LEFT JOIN trees tr ON tr.id = r.tree_id "
			 "LEFT JOIN machines mc ON mc.id = r.machine_id WHERE r.run_id = $1::uuid" },
	[ST_RUN_INSERT] = { "run_insert",
			    "INSERT INTO runs (run_id, job_id, commit_id, setup_id, machine_id, tree_id, branch, "
			    "status, started_at, duration_s, doc_sha256, extra) "
			    "VALUES ($1::uuid, $2::bigint, $3::bigint, $4::bigint, $5::bigint, $6::bigint, $7, $8, "
			    "$9::timestamptz, $10::float8, decode($11, 'hex'), $12::jsonb) "
			    "ON CONFLICT (run_id) DO NOTHING RETURNING id" },
	[ST_RUN_SHA] = { "run_sha",
			 "SELECT encode(doc_sha256, 'hex') FROM runs WHERE run_id = $1::uuid" },
	[ST_RUN_VALUES] = { "run_values",
			    "SELECT m.name, array_to_json(v.vals)::text FROM runs r "
			    "CROSS JOIN LATERAL run_points(r.id, r.received_at) v "
			    "JOIN metrics m ON m.id = v.metric_id WHERE r.id = $1::bigint ORDER BY m.name" },
	[ST_SETUP_GET] = { "setup_get",
			   "SELECT t.name, s.params::text, s.kconfig, s.compiler, s.tbox_group, s.mode, "
			   "s.monitors FROM setups s JOIN testcases t ON t.id = s.testcase_id WHERE s.id = $1::bigint" },
	[ST_SETUP_ID] = { "setup_id",
			  "SELECT id FROM setups WHERE testcase_id = $1::integer AND params_key = $2 AND "
			  "kconfig = $3 AND compiler = $4 AND tbox_group = $5 AND mode = $6 AND monitors = $7" },
	[ST_SETUP_INSERT] = { "setup_insert",
			      "INSERT INTO setups (testcase_id, params, params_key, kconfig, compiler, tbox_group, mode, "
			      "monitors) VALUES ($1::integer, $2::text::jsonb, $2::text, $3, $4, $5, $6, $7) "
			      "ON CONFLICT (testcase_id, md5(params_key), kconfig, compiler, tbox_group, mode, "
			      "monitors) "
			      "DO NOTHING RETURNING id" },
	[ST_TESTCASE_ID] = { "testcase_id", "SELECT id FROM testcases WHERE name = $1" },
	[ST_TESTCASE_INSERT] = { "testcase_insert",
				 "INSERT INTO testcases (name) VALUES ($1) ON CONFLICT (name) DO NOTHING RETURNING id" },
};

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
	/* ids of known metric names (ingest resolves names, then COPYs run_values) */
	[ST_METRIC_IDS] = { "metric_ids",
		"SELECT id, name FROM metrics WHERE name = ANY ($1::text[])" },
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
	/* the newest runs ($2 at most; $1, a state filter, is unused): the overview's last results */
	[ST_RUNS_RECENT_JSON] = { "runs_recent_json",
		"SELECT coalesce(json_agg(x ORDER BY x.id DESC), '[]')::text FROM ("
		"SELECT r.id, r.run_id, r.status, r.received_at, r.job_id, c.sha AS commit, "
		"c.subject, t.name AS testcase, s.params, s.kconfig, s.compiler, s.tbox_group, s.mode, "
		"(SELECT count(*) FROM run_values v WHERE v.run_id = r.id) AS metrics "
		"FROM runs r JOIN commits c ON c.id = r.commit_id JOIN setups s ON s.id = r.setup_id "
		"JOIN testcases t ON t.id = s.testcase_id WHERE $1::text IS NULL "
		"ORDER BY r.id DESC LIMIT $2::integer) x" },
	[ST_RUN_VALUES] = { "run_values",
		"SELECT m.name, array_to_json(v.vals)::text FROM run_values v "
		"JOIN metrics m ON m.id = v.metric_id WHERE v.run_id = $1::bigint ORDER BY m.name" },
	/*
	 * $1 metric, $2 testcase, $3..$7 filters: every run of the metric in the
	 * matching setups as (setup id, commit id, run id, run_id, mean as
	 * PostgreSQL's text), in no particular order, read in binary
	 * (db_exec_binary; api_series.c says why the mean is text). api_series.c
	 * puts them in series order (setup, then ST_SERIES_COMMITS' order of the
	 * commits, then run id): sorting 10^5 rows of commit columns here took
	 * as long as the join (make bench, EXPLAIN ANALYZE), and the commits'
	 * columns are needed once per commit, not per run. The metric's
	 * (run id, mean) pairs come from an index-only scan of run_values_metric
	 * (sql/0010: (metric_id, run_id) INCLUDE (mean)): where each run holds
	 * thousands of metrics, one metric's rows lie on as many heap pages as
	 * it has rows (10^5 page reads, 410 of 517 ms in EXPLAIN (ANALYZE,
	 * BUFFERS) for 10^5 runs x 100 metrics; 500 index pages with the mean
	 * in the index). "r.id + 0": the planner's estimate of one metric's rows
	 * is the table's average (280 of 1.4 million where there were 100,000),
	 * with which it probed runs' primary key once per value (a Memoize with
	 * no hits, 200,000 index probes in all); without that path it hash-joins
	 * the setup's runs with the metric's values. The matching setups are
	 * found once (an InitPlan) and filter the runs' scan: joined with setups
	 * instead, every one of the 10^5 rows went through one more hash join
	 * (EXPLAIN ANALYZE 66-72 -> 55-58 ms on the bench's data).
	 */
	[ST_SERIES] = { "series",
		"SELECT r.setup_id, r.commit_id, r.id, r.run_id, v.mean::text "
		"FROM metrics m JOIN run_values v ON v.metric_id = m.id "
		"JOIN runs r ON r.id + 0 = v.run_id "
		"WHERE m.name = $1 AND r.status = 'ok' AND r.setup_id = ANY (ARRAY("
		"SELECT s.id FROM setups s JOIN testcases t ON t.id = s.testcase_id "
		"WHERE t.name = $2 AND " RUN_FILTERS(3, 4, 5, 6, 7) "))" },
	/*
	 * $1 commit ids (bigint[]): id, sha, subject, commit time, in series
	 * order; read in binary, the time formatted by api_series.c (to_char of
	 * 20,000 commit times was a third of this statement)
	 */
	[ST_SERIES_COMMITS] = { "series_commits",
		"SELECT c.id, c.sha, c.subject, c.commit_time "
		"FROM commits c WHERE c.id = ANY ($1::bigint[]) ORDER BY " COMMIT_ORDER },
	/*
	 * $1 base commit id, $2 head commit id, $3 testcase, $4..$8 filters: the
	 * runs of both commits with their means (sql/0011 run_means: metric ids
	 * ascending, means alongside), base runs flagged, by setup. Read in
	 * binary (db_exec_binary): 12 rows of 5,000 means where the 60,000
	 * run_values rows of a 2 x 6 x 5,000 compare took 35 ms to aggregate.
	 */
	[ST_COMPARE] = { "compare",
		"SELECT r.setup_id, r.commit_id = $1::bigint, m.metric_ids, m.means "
		"FROM runs r JOIN run_means m ON m.run_id = r.id "
		"JOIN setups s ON s.id = r.setup_id JOIN testcases t ON t.id = s.testcase_id "
		"WHERE r.commit_id IN ($1::bigint, $2::bigint) AND r.status = 'ok' AND "
		"($3::text IS NULL OR t.name = $3) AND " RUN_FILTERS(4, 5, 6, 7, 8) " "
		"ORDER BY r.setup_id" },
	/* $1 metric ids (int4[]), $2 name prefix or NULL: in name order (the compare's row order) */
	[ST_COMPARE_METRICS] = { "compare_metrics",
		"SELECT id, name, unit, higher_is_better, is_monitor FROM metrics "
		"WHERE id = ANY ($1::int4[]) AND ($2::text IS NULL OR starts_with(name, $2)) "
		"ORDER BY name" },
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
	[ST_TREE_UPSERT] = { "tree_upsert",
		"INSERT INTO trees (name, url, branches) VALUES ($1, $2, $3::text[]) "
		"ON CONFLICT (name) DO UPDATE SET url = coalesce(EXCLUDED.url, trees.url), "
		"branches = EXCLUDED.branches RETURNING id" },
	[ST_TREES_JSON] = { "trees_json",
		"SELECT coalesce(json_agg(x ORDER BY x.name), '[]')::text FROM ("
		"SELECT id, name, url, branches, created_at, "
		"(SELECT count(*) FROM commits c WHERE c.tree_id = t.id) AS commits FROM trees t) x" },
	[ST_TREE_GET] = { "tree_get", "SELECT id, url FROM trees WHERE name = $1" },
	[ST_MACHINE_REGISTER] = { "machine_register",
		"INSERT INTO machines (hostname, arch, tbox_group, nr_cpus, memory_mb, cpu_model, "
		"capabilities, fingerprint) VALUES ($1, $2, $3, $4::integer, $5::bigint, $6, "
		"$7::text[], $8::jsonb) ON CONFLICT (hostname, arch, tbox_group) DO UPDATE SET "
		"nr_cpus = EXCLUDED.nr_cpus, memory_mb = EXCLUDED.memory_mb, "
		"cpu_model = EXCLUDED.cpu_model, capabilities = EXCLUDED.capabilities, "
		"fingerprint = EXCLUDED.fingerprint, last_seen = now() RETURNING id" },
	[ST_MACHINE_SEEN] = { "machine_seen",
		"UPDATE machines SET last_seen = now() WHERE id = $1::bigint RETURNING id" },
	/* $1 tree $2 commit $3 testcase $4 params $5 kconfig $6 compiler $7 arch $8 tbox_group
	 * $9 capability $10 repeat $11 priority $12 max_attempts $13 token */
	[ST_JOB_INSERT] = { "job_insert",
		"INSERT INTO jobs (tree_id, commit_id, testcase_id, params, kconfig, compiler, arch, "
		"tbox_group, need_capability, repeat, priority, max_attempts, submitted_by) "
		"VALUES ($1::bigint, $2::bigint, $3::integer, $4::jsonb, $5, $6, $7, $8, $9, "
		"$10::integer, $11::integer, $12::integer, $13::bigint) RETURNING id" },
	/* $1 machine, $2 lease seconds: the oldest matching queued job, skipping locked rows */
	[ST_JOB_LEASE] = { "job_lease",
		"WITH m AS (SELECT id, arch, tbox_group, capabilities FROM machines WHERE id = $1::bigint), "
		"j AS (SELECT jobs.id FROM jobs, m WHERE jobs.state = 'queued' "
		"AND (jobs.arch IS NULL OR jobs.arch = m.arch) "
		"AND (jobs.tbox_group IS NULL OR jobs.tbox_group = m.tbox_group) "
		"AND jobs.need_capability = ANY (m.capabilities) "
		"ORDER BY jobs.priority DESC, jobs.id LIMIT 1 FOR UPDATE OF jobs SKIP LOCKED) "
		"UPDATE jobs SET state = 'leased', attempts = jobs.attempts + 1, leased_by = $1::bigint, "
		"leased_at = now(), lease_expires_at = now() + make_interval(secs => $2::float8), "
		"lease_request = $3::uuid, "
		"phase = 'leased', progress = 0, message = NULL, "
		"phase_history = jobs.phase_history || jsonb_build_array(jsonb_build_object("
		"'phase', 'leased', 'at', now(), 'machine_id', $1::bigint, 'attempt', jobs.attempts + 1)) "
		"FROM j WHERE jobs.id = j.id RETURNING jobs.id" },
	/*
	 * $1 machine, $2 lease request (uuid), $3 lease seconds: the job this
	 * machine leased under that request, if still leased to it (sql/0012),
	 * its lease renewed
	 */
	[ST_JOB_LEASE_AGAIN] = { "job_lease_again",
		"UPDATE jobs SET lease_expires_at = now() + make_interval(secs => $3::float8) "
		"WHERE lease_request = $2::uuid AND leased_by = $1::bigint AND state = 'leased' "
		"RETURNING id" },
	[ST_JOB_SPEC] = { "job_spec",
		"SELECT json_build_object('id', j.id, 'tree', tr.name, 'url', tr.url, "
		"'branch', tr.branches[1], 'commit', c.sha, 'kconfig', j.kconfig, "
		"'compiler', j.compiler, 'testcase', t.name, 'params', j.params, 'repeat', j.repeat, "
		"'arch', j.arch, 'tbox_group', j.tbox_group, 'attempt', j.attempts, "
		"'lease_expires_at', j.lease_expires_at)::text "
		"FROM jobs j JOIN commits c ON c.id = j.commit_id JOIN testcases t ON t.id = j.testcase_id "
		"LEFT JOIN trees tr ON tr.id = j.tree_id WHERE j.id = $1::bigint" },
	/* $1 job $2 lease seconds $3 phase $4 progress $5 message $6 machine (NULL = any) */
	[ST_JOB_HEARTBEAT] = { "job_heartbeat",
		"UPDATE jobs SET lease_expires_at = now() + make_interval(secs => $2::float8), "
		"phase = coalesce($3::text, phase), progress = $4::float8, message = $5::text, "
		"phase_history = CASE WHEN $3::text IS NOT NULL AND $3::text IS DISTINCT FROM phase "
		"THEN phase_history || jsonb_build_array(jsonb_build_object('phase', $3::text, "
		"'at', now(), 'progress', $4::float8, 'message', $5::text)) ELSE phase_history END "
		"WHERE id = $1::bigint AND state = 'leased' AND "
		"($6::bigint IS NULL OR leased_by = $6::bigint) RETURNING lease_expires_at" },
	/* whether job $1 / bisect $1 exists (to tell 404 from 409 after a refusal) */
	[ST_JOB_EXISTS] = { "job_exists", "SELECT 1 FROM jobs WHERE id = $1::bigint" },
	[ST_BISECT_EXISTS] = { "bisect_exists", "SELECT 1 FROM bisects WHERE id = $1::bigint" },
	[ST_JOB_LOCK] = { "job_lock",
		"SELECT state, coalesce(leased_by, 0), attempts, outcome FROM jobs "
		"WHERE id = $1::bigint FOR UPDATE" },
	/* $1 job $2 outcome $3 log tail $4 .config */
	[ST_JOB_FINISH] = { "job_finish",
		"UPDATE jobs SET state = 'done', outcome = $2, log_tail = $3, kconfig_text = $4, "
		"finished_at = now(), phase = 'done', progress = 1, lease_expires_at = NULL, "
		"phase_history = phase_history || jsonb_build_array(jsonb_build_object("
		"'phase', 'done', 'at', now(), 'outcome', $2::text)) WHERE id = $1::bigint" },
	[ST_JOB_EXPIRE] = { "job_expire",
		"WITH x AS (SELECT id FROM jobs WHERE state = 'leased' AND lease_expires_at < now() "
		"FOR UPDATE SKIP LOCKED) "
		"UPDATE jobs SET state = CASE WHEN attempts >= max_attempts THEN 'failed' ELSE 'queued' END, "
		"fail_reason = CASE WHEN attempts >= max_attempts THEN format("
		"'lease expired without a heartbeat on attempt %s of %s (machine %s, phase %s)', "
		"attempts, max_attempts, leased_by, phase) ELSE fail_reason END, "
		"finished_at = CASE WHEN attempts >= max_attempts THEN now() END, "
		"phase_history = phase_history || jsonb_build_array(jsonb_build_object("
		"'phase', 'lease-expired', 'at', now(), 'machine_id', leased_by, 'last_phase', phase)), "
		"phase = CASE WHEN attempts >= max_attempts THEN 'failed' ELSE 'queued' END, "
		"leased_by = NULL, lease_expires_at = NULL "
		"FROM x WHERE jobs.id = x.id RETURNING jobs.id, jobs.state" },
#define JOB_JSON \
	"json_build_object('id', j.id, 'state', j.state, 'tree', tr.name, 'commit', c.sha, " \
	"'subject', c.subject, 'kconfig', j.kconfig, 'compiler', j.compiler, 'testcase', t.name, " \
	"'params', j.params, 'repeat', j.repeat, 'arch', j.arch, 'tbox_group', j.tbox_group, " \
	"'capability', j.need_capability, 'priority', j.priority, 'attempts', j.attempts, " \
	"'max_attempts', j.max_attempts, 'machine', m.hostname, 'machine_id', j.leased_by, " \
	"'lease_expires_at', j.lease_expires_at, 'phase', j.phase, 'progress', j.progress, " \
	"'message', j.message, 'outcome', j.outcome, 'fail_reason', j.fail_reason, " \
	"'created_at', j.created_at, 'finished_at', j.finished_at, " \
	"'runs', (SELECT coalesce(json_agg(r.run_id ORDER BY r.id), '[]') FROM runs r " \
	"WHERE r.job_id = j.id)"
#define JOB_FROM \
	" FROM jobs j JOIN commits c ON c.id = j.commit_id JOIN testcases t ON t.id = j.testcase_id " \
	"LEFT JOIN trees tr ON tr.id = j.tree_id LEFT JOIN machines m ON m.id = j.leased_by "
	[ST_JOB_JSON] = { "job_json",
		"SELECT " JOB_JSON ", 'phase_history', j.phase_history, 'log_tail', j.log_tail, "
		"'has_kconfig', j.kconfig_text IS NOT NULL)::text" JOB_FROM "WHERE j.id = $1::bigint" },
	/* $1 state (NULL = any), $2 limit */
	[ST_JOBS_JSON] = { "jobs_json",
		"SELECT coalesce(json_agg(x.o ORDER BY x.id DESC), '[]')::text FROM (SELECT j.id, "
		JOB_JSON ") AS o" JOB_FROM "WHERE $1::text IS NULL OR j.state = $1 "
		"ORDER BY j.id DESC LIMIT $2::integer) x" },
	[ST_JOB_KCONFIG] = { "job_kconfig",
		"SELECT kconfig_text FROM jobs WHERE id = $1::bigint" },
	/* a cheap fingerprint of the queue: long-poll waiters retry only when it changed */
	[ST_QUEUE_COUNT] = { "queue_count",
		"SELECT count(*), coalesce(max(id), 0) FROM jobs WHERE state = 'queued'" },
	/* regressions and detection (sql/0003): add below */
	/* the setup of a stored run waits for detection; cheap, in the ingest
	 * transaction. DO UPDATE, not DO NOTHING: the no-op update locks the
	 * pending row until the run is committed, so the detector's claim (FOR
	 * UPDATE SKIP LOCKED) cannot take it and read the series without this
	 * run, then delete the only row that stood for it (a lost run, seen as
	 * n_after 35 of 36 under load) */
	[ST_DETECT_ENQUEUE] = { "detect_enqueue",
		"INSERT INTO detect_queue (setup_id) VALUES ($1::bigint) "
		"ON CONFLICT (setup_id) WHERE claimed_at IS NULL "
		"DO UPDATE SET setup_id = EXCLUDED.setup_id" },
	/* the oldest queued setup that no one is examining now */
	[ST_DETECT_CLAIM] = { "detect_claim",
		"UPDATE detect_queue SET claimed_at = now() WHERE id = ("
		"SELECT q.id FROM detect_queue q WHERE q.claimed_at IS NULL AND NOT EXISTS ("
		"SELECT 1 FROM detect_queue o WHERE o.setup_id = q.setup_id AND o.claimed_at IS NOT NULL) "
		"ORDER BY q.id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id, setup_id" },
	[ST_DETECT_DONE] = { "detect_done", "DELETE FROM detect_queue WHERE id = $1::bigint" },
	/* a claim given back after a failure: queued again (unless already queued) */
	[ST_DETECT_RELEASE] = { "detect_release",
		"WITH d AS (DELETE FROM detect_queue WHERE id = $1::bigint RETURNING setup_id) "
		"INSERT INTO detect_queue (setup_id) SELECT setup_id FROM d "
		"ON CONFLICT (setup_id) WHERE claimed_at IS NULL DO NOTHING" },
	/* claims of a server that died mid-detection */
	[ST_DETECT_REQUEUE_STALE] = { "detect_requeue_stale",
		"WITH d AS (DELETE FROM detect_queue WHERE claimed_at < now() - interval '10 minutes' "
		"RETURNING setup_id) INSERT INTO detect_queue (setup_id) SELECT DISTINCT setup_id FROM d "
		"ON CONFLICT (setup_id) WHERE claimed_at IS NULL DO NOTHING" },
	/* every run mean of one setup, per metric in series order (as ST_SERIES) */
	[ST_DETECT_SERIES] = { "detect_series",
		"SELECT v.metric_id, m.name, m.higher_is_better, m.is_monitor, r.commit_id, v.mean "
		"FROM runs r JOIN run_values v ON v.run_id = r.id JOIN metrics m ON m.id = v.metric_id "
		"JOIN commits c ON c.id = r.commit_id "
		"WHERE r.setup_id = $1::bigint AND r.status = 'ok' "
		"ORDER BY v.metric_id, " COMMIT_ORDER ", r.id" },
	/* $1 setup $2 metric $3 good $4 bad $5 kind $6..$9 change_pct ci_lo ci_hi p $10 verdict
	 * $11 mean_before $12 mean_after $13 n_before $14 n_after $15 commits_after
	 * $16 pair_change_pct $17 pair_p $18 pair_verdict $19..$22 det before after change p
	 * $23 confirmed by the rule; returns id, state before (NULL = new row), state after */
	/*
	 * A record of the same series already past triage (bisecting, bisected,
	 * reported, fixed, invalid, wontfix) whose range holds the range $3..$4
	 * in the tree's order: a narrower range found later (the bisect's own
	 * runs fill the gap) is the same change, not a new one.
	 */
	[ST_REGR_COVERING] = { "regr_covering",
		"SELECT o.id FROM regressions o JOIN commits og ON og.id = o.good_commit_id "
		"JOIN commits ob ON ob.id = o.bad_commit_id, commits ng, commits nb "
		"WHERE o.setup_id = $1::bigint AND o.metric_id = $2::integer "
		"AND ng.id = $3::bigint AND nb.id = $4::bigint "
		"AND o.state NOT IN ('new', 'confirmed') "
		"AND NOT (o.good_commit_id = $3::bigint AND o.bad_commit_id = $4::bigint) "
		"AND ng.topo_order >= og.topo_order AND nb.topo_order <= ob.topo_order "
		"ORDER BY o.id LIMIT 1" },
	[ST_REGR_UPSERT] = { "regr_upsert",
		"WITH old AS (SELECT id, state FROM regressions WHERE setup_id = $1::bigint AND "
		"metric_id = $2::integer AND good_commit_id = $3::bigint AND bad_commit_id = $4::bigint), "
		"up AS (INSERT INTO regressions (setup_id, metric_id, good_commit_id, bad_commit_id, kind, "
		"state, change_pct, ci_lo_pct, ci_hi_pct, p_value, verdict, mean_before, mean_after, "
		"n_before, n_after, commits_after, pair_change_pct, pair_p_value, pair_verdict, "
		"det_before, det_after, det_change_pct, det_p_value) VALUES ($1::bigint, $2::integer, "
		"$3::bigint, $4::bigint, $5, CASE WHEN $23::boolean THEN 'confirmed' ELSE 'new' END, "
		"$6::float8, $7::float8, $8::float8, $9::float8, $10, $11::float8, $12::float8, "
		"$13::integer, $14::integer, $15::integer, $16::float8, $17::float8, $18, $19::float8, "
		"$20::float8, $21::float8, $22::float8) "
		"ON CONFLICT (setup_id, metric_id, good_commit_id, bad_commit_id) DO UPDATE SET "
		"kind = EXCLUDED.kind, change_pct = EXCLUDED.change_pct, ci_lo_pct = EXCLUDED.ci_lo_pct, "
		"ci_hi_pct = EXCLUDED.ci_hi_pct, p_value = EXCLUDED.p_value, verdict = EXCLUDED.verdict, "
		"mean_before = EXCLUDED.mean_before, mean_after = EXCLUDED.mean_after, "
		"n_before = EXCLUDED.n_before, n_after = EXCLUDED.n_after, "
		"commits_after = EXCLUDED.commits_after, pair_change_pct = EXCLUDED.pair_change_pct, "
		"pair_p_value = EXCLUDED.pair_p_value, pair_verdict = EXCLUDED.pair_verdict, "
		"det_before = EXCLUDED.det_before, det_after = EXCLUDED.det_after, "
		"det_change_pct = EXCLUDED.det_change_pct, det_p_value = EXCLUDED.det_p_value, "
		"detected = true, detected_at = now(), "
		"state = CASE WHEN regressions.state = 'new' AND EXCLUDED.state = 'confirmed' "
		"THEN 'confirmed' ELSE regressions.state END, "
		"updated_at = CASE WHEN regressions.state = 'new' AND EXCLUDED.state = 'confirmed' "
		"THEN now() ELSE regressions.updated_at END "
		"RETURNING id, state) "
		"SELECT up.id, old.state, up.state FROM up LEFT JOIN old ON old.id = up.id" },
	/* $1 setup, $2 ids the latest detection found: the others are withdrawn when still
	 * `new`, else kept with detected = false and a history note */
	[ST_REGR_UNDETECT] = { "regr_undetect",
		"WITH gone AS (SELECT id, state FROM regressions WHERE setup_id = $1::bigint AND detected "
		"AND id <> ALL ($2::bigint[])), "
		"del AS (DELETE FROM regressions r USING gone WHERE r.id = gone.id AND gone.state = 'new' "
		"RETURNING r.id), "
		"upd AS (UPDATE regressions r SET detected = false FROM gone WHERE r.id = gone.id AND "
		"gone.state <> 'new' RETURNING r.id, r.state), "
		"h AS (INSERT INTO regression_history (regression_id, who, from_state, to_state, note) "
		"SELECT id, 'detector', state, state, 'no longer detected: the latest detection of the "
		"series does not find this range' FROM upd) "
		"SELECT (SELECT count(*) FROM del), (SELECT count(*) FROM upd)" },
	/* $1 regression $2 who (NULL = the token's name) $3 token id $4 from $5 to $6 note */
	[ST_REGR_HISTORY_ADD] = { "regr_history_add",
		"INSERT INTO regression_history (regression_id, who, token_id, from_state, to_state, note) "
		"VALUES ($1::bigint, coalesce($2::text, (SELECT 'token:' || name FROM api_tokens "
		"WHERE id = $3::bigint), 'anonymous'), $3::bigint, $4, $5, $6) RETURNING id" },
	/* $1 id, $2 new state (NULL = keep): returns the state before and after */
	[ST_REGR_SET_STATE] = { "regr_set_state",
		"UPDATE regressions r SET state = coalesce($2::text, o.state), updated_at = now() "
		"FROM (SELECT id, state FROM regressions WHERE id = $1::bigint FOR UPDATE) o "
		"WHERE r.id = o.id RETURNING o.state, r.state" },
#define REG_JSON \
	"json_build_object('id', g.id, 'kind', g.kind, 'state', g.state, 'testcase', t.name, " \
	"'params', s.params, 'kconfig', s.kconfig, 'compiler', s.compiler, " \
	"'tbox_group', s.tbox_group, 'mode', s.mode, 'setup_id', s.id, 'metric', m.name, " \
	"'unit', m.unit, 'higher_is_better', m.higher_is_better, " \
	"'good', json_build_object('sha', cg.sha, 'subject', cg.subject), " \
	"'bad', json_build_object('sha', cb.sha, 'subject', cb.subject), " \
	"'change_pct', g.change_pct, 'ci_pct', json_build_array(g.ci_lo_pct, g.ci_hi_pct), " \
	"'p_value', g.p_value, 'verdict', g.verdict, 'mean_before', g.mean_before, " \
	"'mean_after', g.mean_after, 'n_before', g.n_before, 'n_after', g.n_after, " \
	"'commits_after', g.commits_after, 'pair', json_build_object('change_pct', " \
	"g.pair_change_pct, 'p_value', g.pair_p_value, 'verdict', g.pair_verdict), " \
	"'detector', json_build_object('before', g.det_before, 'after', g.det_after, " \
	"'change_pct', g.det_change_pct, 'p_value', g.det_p_value), 'detected', g.detected, " \
	"'bisect_id', g.bisect_id, 'created_at', g.created_at, 'updated_at', g.updated_at, " \
	"'detected_at', g.detected_at, 'group_id', grp.gid, 'group_size', grp.gsize)"
#define REG_FROM \
	" FROM regressions g JOIN setups s ON s.id = g.setup_id " \
	"JOIN testcases t ON t.id = s.testcase_id JOIN metrics m ON m.id = g.metric_id " \
	"JOIN commits cg ON cg.id = g.good_commit_id JOIN commits cb ON cb.id = g.bad_commit_id " \
	"CROSS JOIN LATERAL (SELECT min(o.id) AS gid, count(*) AS gsize FROM regressions o " \
	"WHERE o.good_commit_id = g.good_commit_id AND o.bad_commit_id = g.bad_commit_id) grp "
	/* $1 state $2 kind $3 testcase $4 metric (NULL = any) $5 limit $6 group leaders only */
	[ST_REGRESSIONS_JSON] = { "regressions_json",
		"SELECT coalesce(json_agg(x.o ORDER BY x.created_at DESC, x.id DESC), '[]')::text FROM ("
		"SELECT g.id, g.created_at, " REG_JSON " AS o" REG_FROM
		"WHERE ($1::text IS NULL OR g.state = $1) AND ($2::text IS NULL OR g.kind = $2) AND "
		"($3::text IS NULL OR t.name = $3) AND ($4::text IS NULL OR m.name = $4) AND "
		"(NOT coalesce($6::boolean, false) OR grp.gid = g.id) "
		"ORDER BY g.created_at DESC, g.id DESC LIMIT $5::integer) x" },
	[ST_REGRESSION_JSON] = { "regression_json",
		"SELECT " REG_JSON "::text" REG_FROM "WHERE g.id = $1::bigint" },
	/* every record of the same range as $1, the group leader (smallest id) first */
	[ST_REGRESSION_GROUP_JSON] = { "regression_group_json",
		"SELECT coalesce(json_agg(" REG_JSON " ORDER BY g.id), '[]')::text" REG_FROM
		"WHERE (g.good_commit_id, g.bad_commit_id) = (SELECT good_commit_id, bad_commit_id "
		"FROM regressions WHERE id = $1::bigint)" },
	[ST_REGRESSION_HISTORY_JSON] = { "regression_history_json",
		"SELECT coalesce(json_agg(json_build_object('at', h.at, 'who', h.who, "
		"'from', h.from_state, 'to', h.to_state, 'note', h.note) ORDER BY h.id), '[]')::text "
		"FROM regression_history h WHERE h.regression_id = $1::bigint" },
	/* $1 setup $2 metric name: the change points the latest detection found */
	[ST_SERIES_CHANGE_POINTS] = { "series_change_points",
		"SELECT g.id, cb.sha, cg.sha, g.det_before, g.det_after, g.det_change_pct, "
		"g.det_p_value, g.kind, g.state FROM regressions g JOIN metrics m ON m.id = g.metric_id "
		"JOIN commits cb ON cb.id = g.bad_commit_id JOIN commits cg ON cg.id = g.good_commit_id "
		"WHERE g.setup_id = $1::bigint AND m.name = $2 AND g.detected ORDER BY g.id" },
	/* bisect (sql/0004): add below */
	/* $1 shas $2 parents (space-separated) $3 authors $4 commit times $5 subjects (text[] each),
	 * $6 tree, $7 topo_order of the row before the first */
	[ST_COMMITS_IMPORT] = { "commits_import",
		"INSERT INTO commits (sha, tree_id, subject, author, commit_time, parents, topo_order) "
		"SELECT u.sha, $6::bigint, u.subject, u.author, u.ct::timestamptz, "
		"coalesce(string_to_array(nullif(u.par, ''), ' '), '{}'), $7::bigint + u.ord "
		"FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) "
		"WITH ORDINALITY AS u (sha, par, author, ct, subject, ord) "
		"ON CONFLICT (sha) DO UPDATE SET parents = EXCLUDED.parents, "
		"topo_order = EXCLUDED.topo_order, tree_id = coalesce(commits.tree_id, EXCLUDED.tree_id), "
		"subject = coalesce(commits.subject, EXCLUDED.subject), "
		"author = coalesce(commits.author, EXCLUDED.author), "
		"commit_time = coalesce(commits.commit_time, EXCLUDED.commit_time)" },
	/* a tree whose mirror was never made from its current url */
	[ST_TREE_MIRROR_TODO] = { "tree_mirror_todo",
		"SELECT t.id, t.name, t.url, array_to_string(t.branches, ' ') FROM trees t "
		"LEFT JOIN tree_mirrors m ON m.tree_id = t.id WHERE t.url IS NOT NULL AND "
		"(m.tree_id IS NULL OR m.url IS DISTINCT FROM t.url) ORDER BY t.id LIMIT 1" },
	/* $1 tree $2 url $3 commits imported $4 error */
	[ST_TREE_MIRROR_SET] = { "tree_mirror_set",
		"INSERT INTO tree_mirrors (tree_id, url, synced_at, commits, error) "
		"VALUES ($1::bigint, $2, now(), $3::integer, $4) ON CONFLICT (tree_id) DO UPDATE SET "
		"url = EXCLUDED.url, synced_at = now(), commits = coalesce(EXCLUDED.commits, "
		"tree_mirrors.commits), error = EXCLUDED.error" },
	[ST_TREE_BY_ID] = { "tree_by_id",
		"SELECT name, url, array_to_string(branches, ' ') FROM trees WHERE id = $1::bigint" },
	/* $1 tree $2 good $3 bad $4 testcase $5 params $6 kconfig $7 compiler $8 arch $9 tbox_group
	 * $10 metric $11 runs_per_step $12 ref_runs $13 k $14 regression $15 token */
	[ST_BISECT_INSERT] = { "bisect_insert",
		"INSERT INTO bisects (tree_id, good_id, bad_id, testcase_id, params, kconfig, compiler, "
		"arch, tbox_group, metric, runs_per_step, ref_runs, max_k, regression_id, submitted_by) "
		"VALUES ($1::bigint, $2::bigint, $3::bigint, $4::integer, $5::jsonb, $6, $7, $8, $9, $10, "
		"$11::integer, $12::integer, $13::integer, $14::bigint, $15::bigint) RETURNING id" },
	[ST_BISECT_ACTIVE] = { "bisect_active",
		"SELECT id FROM bisects WHERE state IN ('queued', 'running') ORDER BY id" },
	/* locks one active bisect for its coordinator step (skipped when another server holds it) */
	[ST_BISECT_LOCK] = { "bisect_lock",
		"SELECT b.state, b.round, tr.name, tr.url, array_to_string(tr.branches, ' '), g.sha, "
		"bd.sha, b.kconfig, b.arch, b.tbox_group, coalesce(b.params->>'measure', ''), "
		"b.runs_per_step, b.ref_runs, b.max_k, coalesce(b.regression_id, 0), b.tree_id, "
		"b.metric, coalesce(b.nr_candidates, 0), b.level, lg.sha, lg.id, (b.descents->-1)::text "
		"FROM bisects b JOIN trees tr ON tr.id = b.tree_id JOIN commits g ON g.id = b.good_id "
		"JOIN commits bd ON bd.id = b.bad_id "
		"JOIN commits lg ON lg.id = coalesce(b.level_good_id, b.good_id) "
		"WHERE b.id = $1::bigint AND b.state IN ('queued', 'running') FOR UPDATE OF b SKIP LOCKED" },
	/* $1 bisect $2 candidates $3 commits in the whole range */
	[ST_BISECT_START] = { "bisect_start",
		"UPDATE bisects SET state = 'running', started_at = coalesce(started_at, now()), "
		"nr_candidates = $2::integer, nr_range = $3::integer, phase = 'refs' WHERE id = $1::bigint" },
	/* $1 bisect $2 shas (text[], oldest first) $3 level (sql/0009) */
	[ST_BISECT_COMMITS_INSERT] = { "bisect_commits_insert",
		"INSERT INTO bisect_commits (bisect_id, level, idx, commit_id) "
		"SELECT $1::bigint, $3::integer, u.ord - 1, c.id "
		"FROM unnest($2::text[]) WITH ORDINALITY AS u (sha, ord) JOIN commits c ON c.sha = u.sha" },
	/* the candidates of the bisect's current level */
	[ST_BISECT_CANDIDATES] = { "bisect_candidates",
		"SELECT bc.idx, c.id, c.sha FROM bisect_commits bc JOIN commits c ON c.id = bc.commit_id "
		"JOIN bisects b ON b.id = bc.bisect_id AND b.level = bc.level "
		"WHERE bc.bisect_id = $1::bigint ORDER BY bc.idx" },
	/*
	 * $1 bisect, $2 reuse: every ok run of the bisect's series at its commits (idx -1 = the
	 * good endpoint), one value a run (the mean over its iterations); the bisect's own jobs
	 * only unless $2
	 */
	[ST_BISECT_SAMPLES] = { "bisect_samples",
		"SELECT x.idx, (SELECT avg(v) FROM unnest(rv.vals) v) "
		"FROM bisects b JOIN (SELECT bc.idx, bc.commit_id FROM bisect_commits bc JOIN bisects l "
		"ON l.id = bc.bisect_id AND l.level = bc.level WHERE bc.bisect_id = $1::bigint "
		"UNION ALL SELECT -1, coalesce(level_good_id, good_id) FROM bisects WHERE id = $1::bigint) x "
		"ON true "
		"JOIN runs r ON r.commit_id = x.commit_id JOIN setups s ON s.id = r.setup_id "
		"JOIN run_values rv ON rv.run_id = r.id JOIN metrics m ON m.id = rv.metric_id "
		"LEFT JOIN machines mc ON mc.id = r.machine_id LEFT JOIN jobs j ON j.id = r.job_id "
		"WHERE b.id = $1::bigint AND r.status = 'ok' AND m.name = b.metric "
		"AND s.testcase_id = b.testcase_id AND s.params = b.params AND s.kconfig = b.kconfig "
		"AND s.compiler = b.compiler AND (b.tbox_group IS NULL OR s.tbox_group = b.tbox_group) "
		"AND (b.arch IS NULL OR mc.arch = b.arch) AND (j.bisect_id = b.id OR $2::boolean) "
		"ORDER BY x.idx, r.id" },
	[ST_BISECT_JOBS] = { "bisect_jobs",
		"SELECT commit_id, bisect_round, state, coalesce(outcome, '') FROM jobs "
		"WHERE bisect_id = $1::bigint ORDER BY id" },
	/* $1 arch $2 tbox_group $3 capability: matching machines seen lately, and the idle ones */
	[ST_BISECT_WORKERS] = { "bisect_workers",
		"SELECT count(*) FILTER (WHERE NOT x.busy), count(*) FROM (SELECT m.id, EXISTS ("
		"SELECT 1 FROM jobs j WHERE j.leased_by = m.id AND j.state = 'leased') AS busy "
		"FROM machines m WHERE m.last_seen > now() - make_interval(secs => $4::float8) "
		"AND ($1::text IS NULL OR m.arch = $1) AND ($2::text IS NULL OR m.tbox_group = $2) "
		"AND $3 = ANY (m.capabilities)) x" },
	/* $1 bisect $2 commit $3 capability $4 repeat $5 priority $6 max_attempts $7 round */
	[ST_BISECT_JOB_INSERT] = { "bisect_job_insert",
		"INSERT INTO jobs (tree_id, commit_id, testcase_id, params, kconfig, compiler, arch, "
		"tbox_group, need_capability, repeat, priority, max_attempts, bisect_id, bisect_round) "
		"SELECT b.tree_id, $2::bigint, b.testcase_id, b.params, b.kconfig, b.compiler, b.arch, "
		"b.tbox_group, $3, $4::integer, $5::integer, $6::integer, b.id, $7::integer "
		"FROM bisects b WHERE b.id = $1::bigint RETURNING id" },
	/* $1 bisect $2 commit $3 round $4 role $5 verdict $6 samples $7 evidence */
	[ST_BISECT_STEP_INSERT] = { "bisect_step_insert",
		"INSERT INTO bisect_steps (bisect_id, commit_id, round, role, verdict, samples, evidence, "
		"level) VALUES ($1::bigint, $2::bigint, $3::integer, $4, $5, $6::float8[], $7::jsonb, "
		"(SELECT level FROM bisects WHERE id = $1::bigint))" },
	/* $1 bisect $2 new level $3 its good end (commit id) $4 the level left (jsonb object) */
	[ST_BISECT_DESCEND] = { "bisect_descend",
		"UPDATE bisects SET level = $2::integer, level_good_id = $3::bigint, "
		"descents = descents || jsonb_build_array($4::jsonb), phase = 'refs' "
		"WHERE id = $1::bigint" },
	[ST_BISECT_STEPS_COUNT] = { "bisect_steps_count",
		"SELECT count(*) FROM bisect_steps WHERE bisect_id = $1::bigint AND round = $2::integer" },
	/* $1 bisect $2 round $3 phase $4 model */
	[ST_BISECT_ROUND] = { "bisect_round",
		"UPDATE bisects SET round = $2::integer, phase = $3, model = $4::jsonb WHERE id = $1::bigint" },
	/* $1 bisect $2 state $3 outcome $4 first bad $5 candidates $6 confidence $7 reason
	 * $8 verification $9 model */
	/*
	 * A bisect started by hand that found its first bad commit becomes a
	 * regression (or improvement) record of first bad vs its parent, state
	 * bisected, so it is reported and shown like one detection found; the
	 * bisect points to it. Sizes come from the verification round.
	 */
	[ST_BISECT_RECORD] = { "bisect_record",
		"WITH b AS (SELECT * FROM bisects WHERE id = $1::bigint), "
		"f AS (SELECT c.id, c.parents[1] AS parent FROM commits c, b WHERE c.id = b.first_bad_id), "
		"p AS (SELECT c.id FROM commits c, f WHERE c.sha = f.parent), "
		"s AS (SELECT s.id FROM setups s, b WHERE s.testcase_id = b.testcase_id "
		"AND s.params = b.params AND s.kconfig = b.kconfig AND s.compiler = b.compiler "
		"AND (b.tbox_group IS NULL OR s.tbox_group = b.tbox_group) "
		"AND s.mode = coalesce(b.params->>'measure', 'wallclock') ORDER BY s.id LIMIT 1), "
		"m AS (SELECT m.id, m.higher_is_better FROM metrics m, b WHERE m.name = b.metric), "
		"v AS (SELECT b.verification AS j FROM b), "
		"ins AS (INSERT INTO regressions (setup_id, metric_id, good_commit_id, bad_commit_id, "
		"kind, state, change_pct, ci_lo_pct, ci_hi_pct, p_value, verdict, mean_before, "
		"mean_after, n_before, n_after, commits_after, pair_change_pct, pair_p_value, "
		"pair_verdict, detected, bisect_id) "
		"SELECT s.id, m.id, p.id, f.id, CASE WHEN m.higher_is_better IS NULL THEN 'change' "
		"WHEN ((v.j->>'change_pct')::float8 < 0) = m.higher_is_better THEN 'regression' "
		"ELSE 'improvement' END, 'bisected', (v.j->>'change_pct')::float8, "
		"(v.j->'ci_pct'->>0)::float8, (v.j->'ci_pct'->>1)::float8, (v.j->>'p_value')::float8, "
		"coalesce(v.j->>'verdict', 'need-more-runs'), (v.j->'mean'->>0)::float8, "
		"(v.j->'mean'->>1)::float8, coalesce((v.j->'n'->>0)::int, 0), "
		"coalesce((v.j->'n'->>1)::int, 0), 1, (v.j->>'change_pct')::float8, "
		"(v.j->>'p_value')::float8, coalesce(v.j->>'verdict', 'need-more-runs'), false, $1::bigint "
		"FROM f, p, s, m, v "
		"ON CONFLICT (setup_id, metric_id, good_commit_id, bad_commit_id) DO UPDATE SET "
		"bisect_id = coalesce(regressions.bisect_id, EXCLUDED.bisect_id) RETURNING id), "
		"hist AS (INSERT INTO regression_history (regression_id, who, from_state, to_state, note) "
		"SELECT id, 'bisect', NULL, 'bisected', 'recorded by bisect ' || $1 || ' (started by hand)' "
		"FROM ins) "
		"UPDATE bisects SET regression_id = ins.id FROM ins WHERE bisects.id = $1::bigint "
		"RETURNING ins.id" },
	/*
	 * Another record of the same setup and range that already has a bisect:
	 * the metrics of one setup share its jobs, so one bisect serves them all.
	 */
	[ST_BISECT_SIBLING] = { "bisect_sibling",
		"SELECT o.bisect_id FROM regressions o, regressions r WHERE r.id = $1::bigint "
		"AND o.id <> r.id AND o.setup_id = r.setup_id AND o.good_commit_id = r.good_commit_id "
		"AND o.bad_commit_id = r.bad_commit_id AND o.bisect_id IS NOT NULL "
		"ORDER BY o.id LIMIT 1" },
	/* the other records that share bisect $1 and still wait for it */
	[ST_BISECT_SIBLINGS_OF] = { "bisect_siblings_of",
		"SELECT r.id FROM regressions r JOIN bisects b ON b.id = r.bisect_id "
		"WHERE r.bisect_id = $1::bigint AND r.id <> coalesce(b.regression_id, 0) "
		"AND r.state = 'bisecting' ORDER BY r.id" },
	[ST_BISECT_FINISH] = { "bisect_finish",
		"UPDATE bisects SET state = $2, outcome = $3, first_bad_id = $4::bigint, "
		"candidate_ids = $5::bigint[], confidence = $6::float8, reason = $7, "
		"verification = $8::jsonb, model = coalesce($9::jsonb, model), phase = 'end', "
		"finished_at = now() WHERE id = $1::bigint RETURNING coalesce(regression_id, 0)" },
#define BISECT_JSON \
	"'id', b.id, 'state', b.state, 'tree', tr.name, 'good', g.sha, 'bad', bd.sha, " \
	"'testcase', t.name, 'params', b.params, 'kconfig', b.kconfig, 'compiler', b.compiler, " \
	"'arch', b.arch, 'tbox_group', b.tbox_group, 'metric', b.metric, " \
	"'runs_per_step', b.runs_per_step, 'ref_runs', b.ref_runs, 'k', b.max_k, 'round', b.round, " \
	"'phase', b.phase, 'nr_candidates', b.nr_candidates, 'nr_range', b.nr_range, " \
	"'level', b.level, 'descents', b.descents, " \
	"'outcome', b.outcome, 'first_bad_commit', CASE WHEN fb.id IS NULL THEN NULL ELSE " \
	"json_build_object('sha', fb.sha, 'subject', fb.subject, 'author', fb.author, " \
	"'commit_time', fb.commit_time, 'diffstat', (SELECT json_build_object('files_changed', " \
	"ds.files_changed, 'insertions', ds.insertions, 'deletions', ds.deletions, 'files', " \
	"(SELECT coalesce(json_agg(json_build_object('path', cf.path, 'insertions', cf.insertions, " \
	"'deletions', cf.deletions) ORDER BY cf.path), '[]') FROM (SELECT * FROM commit_files " \
	"WHERE commit_id = ds.commit_id ORDER BY path LIMIT 100) cf)) FROM commit_diffstat ds " \
	"WHERE ds.commit_id = fb.id)) END, " \
	"'confidence', b.confidence, 'reason', b.reason, 'regression_id', b.regression_id, " \
	"'jobs_used', (SELECT count(*) FROM jobs j WHERE j.bisect_id = b.id), " \
	"'runs_used', (SELECT count(*) FROM runs r JOIN jobs j ON j.id = r.job_id " \
	"WHERE j.bisect_id = b.id), " \
	"'wall_time_s', extract(epoch FROM coalesce(b.finished_at, now()) - b.created_at), " \
	"'created_at', b.created_at, 'started_at', b.started_at, 'finished_at', b.finished_at"
#define BISECT_FROM \
	" FROM bisects b JOIN trees tr ON tr.id = b.tree_id JOIN commits g ON g.id = b.good_id " \
	"JOIN commits bd ON bd.id = b.bad_id JOIN testcases t ON t.id = b.testcase_id " \
	"LEFT JOIN commits fb ON fb.id = b.first_bad_id "
	[ST_BISECT_JSON] = { "bisect_json",
		"SELECT json_build_object(" BISECT_JSON ", "
		"'candidates', (SELECT coalesce(json_agg(json_build_object('sha', c.sha, 'subject', "
		"c.subject) ORDER BY u.o), '[]') FROM unnest(b.candidate_ids) WITH ORDINALITY AS u (cid, o) "
		"JOIN commits c ON c.id = u.cid), 'verification', b.verification, 'model', b.model, "
		"'steps', (SELECT coalesce(json_agg(json_build_object('commit', c.sha, 'subject', "
		"c.subject, 'round', s.round, 'level', s.level, 'role', s.role, 'samples', s.samples, "
		"'verdict', s.verdict, "
		"'evidence', s.evidence) ORDER BY s.id), '[]') FROM bisect_steps s "
		"JOIN commits c ON c.id = s.commit_id WHERE s.bisect_id = b.id))::text"
		BISECT_FROM "WHERE b.id = $1::bigint" },
	/* $1 state (NULL = any) $2 limit */
	[ST_BISECTS_JSON] = { "bisects_json",
		"SELECT coalesce(json_agg(x.o ORDER BY x.id DESC), '[]')::text FROM (SELECT b.id, "
		"json_build_object(" BISECT_JSON ") AS o" BISECT_FROM
		"WHERE $1::text IS NULL OR b.state = $1 ORDER BY b.id DESC LIMIT $2::integer) x" },
	/* $1 smallest |%change|: a confirmed regression without a bisect, locked */
	[ST_BISECT_REG_TODO] = { "bisect_reg_todo",
		"SELECT r.id, t.name, s.params::text, s.kconfig, s.compiler, s.tbox_group, m.name, "
		"gc.sha, bc.sha, tr.name, r.change_pct "
		"FROM regressions r JOIN setups s ON s.id = r.setup_id "
		"JOIN testcases t ON t.id = s.testcase_id "
		"JOIN metrics m ON m.id = r.metric_id JOIN commits gc ON gc.id = r.good_commit_id "
		"JOIN commits bc ON bc.id = r.bad_commit_id "
		"JOIN trees tr ON tr.id = coalesce(bc.tree_id, gc.tree_id) WHERE r.state = 'confirmed' "
		"AND r.bisect_id IS NULL AND r.kind IN ('regression', 'change') "
		"AND abs(r.change_pct) >= $1::float8 "
		"ORDER BY r.id LIMIT 1 FOR UPDATE OF r SKIP LOCKED" },
	[ST_BISECT_REG_LINK] = { "bisect_reg_link",
		"UPDATE regressions SET bisect_id = $2::bigint, updated_at = now() WHERE id = $1::bigint" },
	/* cancels a bisect and its jobs not yet finished; returns the bisect when it was active */
	[ST_BISECT_CANCEL] = { "bisect_cancel",
		"WITH j AS (UPDATE jobs SET state = 'cancelled', finished_at = now(), "
		"lease_expires_at = NULL WHERE bisect_id = $1::bigint AND state IN ('queued', 'leased') "
		"RETURNING id) UPDATE bisects SET state = 'cancelled', phase = 'end', finished_at = now(), "
		"reason = coalesce($2, 'cancelled') WHERE id = $1::bigint AND state IN ('queued', 'running') "
		"RETURNING id, (SELECT count(*) FROM j)" },
	/* mail (sql/0005): add below */
	/* $1 kind, $2 regression id, $3 bisect id (NULL when not known) */
	[ST_OUTBOX_INSERT] = { "outbox_insert",
		"INSERT INTO outbox (kind, regression_id, bisect_id) "
		"VALUES ($1, $2::bigint, $3::bigint) RETURNING id" },
	/* the oldest due queued row, locked for this transaction */
	[ST_OUTBOX_CLAIM] = { "outbox_claim",
		"SELECT id, kind, coalesce(regression_id, 0), coalesce(bisect_id, 0), "
		"subject IS NOT NULL, attempts FROM outbox "
		"WHERE state = 'queued' AND next_attempt_at <= now() "
		"ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED" },
	[ST_OUTBOX_ROW] = { "outbox_row",
		"SELECT subject, body, message_id, in_reply_to, "
		"array_to_string(recipients, ' ') FROM outbox WHERE id = $1::bigint" },
	/* $1 id, $2 subject, $3 body, $4 message id, $5 in-reply-to, $6 recipients
	 * (space-separated), $7 regression id, $8 thread root id */
	[ST_OUTBOX_RENDER] = { "outbox_render",
		"UPDATE outbox SET subject = $2, body = $3, message_id = $4, in_reply_to = $5, "
		"recipients = string_to_array($6, ' '), regression_id = $7::bigint, "
		"thread_id = $8::bigint WHERE id = $1::bigint" },
	/* $2 'sent' or 'dry_run' */
	[ST_OUTBOX_DONE] = { "outbox_done",
		"UPDATE outbox SET state = $2, attempts = attempts + 1, sent_at = now(), "
		"last_error = NULL WHERE id = $1::bigint" },
	/* exponential backoff: 2^attempts seconds, at most $3 */
	[ST_OUTBOX_RETRY] = { "outbox_retry",
		"UPDATE outbox SET attempts = attempts + 1, last_error = $2, "
		"next_attempt_at = now() + make_interval(secs => least($3::float8, "
		"power(2, least(attempts, 30)))) WHERE id = $1::bigint" },
	[ST_OUTBOX_DEFER] = { "outbox_defer",
		"UPDATE outbox SET next_attempt_at = now() + interval '1 second' "
		"WHERE id = $1::bigint" },
	/* $2 'failed' or 'skipped', $3 why */
	[ST_OUTBOX_GIVEUP] = { "outbox_giveup",
		"UPDATE outbox SET state = $2, last_error = $3 WHERE id = $1::bigint" },
	/* the first report of regression $1 before row $2 (the thread root) */
	[ST_OUTBOX_THREAD_ROOT] = { "outbox_thread_root",
		"SELECT id, coalesce(message_id, ''), coalesce(subject, '') FROM outbox "
		"WHERE regression_id = $1::bigint AND kind <> 'fixed' AND id < $2::bigint "
		"AND state IN ('queued', 'sent', 'dry_run') ORDER BY id LIMIT 1" },
	/* $1 regression id (NULL = all), $2 limit */
	[ST_OUTBOX_JSON] = { "outbox_json",
		"SELECT coalesce(json_agg(json_build_object('id', o.id, 'kind', o.kind, "
		"'regression_id', o.regression_id, 'bisect_id', o.bisect_id, 'thread_id', o.thread_id, "
		"'state', o.state, 'message_id', o.message_id, 'in_reply_to', o.in_reply_to, "
		"'subject', o.subject, 'recipients', o.recipients, 'attempts', o.attempts, "
		"'last_error', o.last_error, 'created_at', o.created_at, 'sent_at', o.sent_at) "
		"ORDER BY o.id DESC), '[]')::text FROM (SELECT * FROM outbox "
		"WHERE $1::bigint IS NULL OR regression_id = $1::bigint "
		"ORDER BY id DESC LIMIT $2::integer) o" },
	/* what a report of regression $1 says (mailer.c reads the columns by index) */
	[ST_MAIL_REGRESSION] = { "mail_regression",
		"SELECT r.kind, r.change_pct, m.name, t.name, s.params::text, s.kconfig, s.compiler, "
		"s.tbox_group, s.mode, g.sha, g.subject, b.sha, b.subject, b.author, "
		"coalesce(tr.name, ''), x.branch, x.arch, x.nr_cpus, x.memory_mb, x.cpu_model, "
		"r.setup_id, r.good_commit_id, r.bad_commit_id, r.metric_id, "
		"coalesce(r.bisect_id, 0), b.parents[1], r.state "
		"FROM regressions r JOIN metrics m ON m.id = r.metric_id "
		"JOIN setups s ON s.id = r.setup_id JOIN testcases t ON t.id = s.testcase_id "
		"JOIN commits g ON g.id = r.good_commit_id JOIN commits b ON b.id = r.bad_commit_id "
		"LEFT JOIN LATERAL (SELECT ru.branch, ru.tree_id, ma.arch, ma.nr_cpus, ma.memory_mb, "
		"ma.cpu_model FROM runs ru LEFT JOIN machines ma ON ma.id = ru.machine_id "
		"WHERE ru.setup_id = r.setup_id AND ru.commit_id = r.bad_commit_id "
		"ORDER BY ru.id DESC LIMIT 1) x ON true "
		"LEFT JOIN trees tr ON tr.id = coalesce(x.tree_id, b.tree_id) WHERE r.id = $1::bigint" },
	[ST_MAIL_BISECT_REGRESSION] = { "mail_bisect_regression",
		"SELECT id FROM regressions WHERE bisect_id = $1::bigint ORDER BY id LIMIT 1" },
	/* subscriptions of tree $1 and testcase $2; metric globs and paths checked in C */
	[ST_MAIL_SUBS_MATCH] = { "mail_subs_match",
		"SELECT email, coalesce(metric, ''), array_to_string(paths, E'\n') FROM subscriptions "
		"WHERE (tree IS NULL OR tree = $1) AND (testcase IS NULL OR testcase = $2) ORDER BY id" },
	[ST_SUB_INSERT] = { "sub_insert",
		"INSERT INTO subscriptions (email, tree, testcase, metric, paths) "
		"VALUES ($1, $2, $3, $4, coalesce($5::text[], '{}')) RETURNING id" },
	[ST_SUBS_JSON] = { "subs_json",
		"SELECT coalesce(json_agg(json_build_object('id', id, 'email', email, 'tree', tree, "
		"'testcase', testcase, 'metric', metric, 'paths', paths, 'created_at', created_at) "
		"ORDER BY id), '[]')::text FROM subscriptions" },
	[ST_SUB_DELETE] = { "sub_delete",
		"DELETE FROM subscriptions WHERE id = $1::bigint RETURNING id" },
	/* a finished bisect's culprit (first bad commit) and its first parent */
	[ST_MAIL_BISECT] = { "mail_bisect",
		"SELECT f.id, f.sha, f.subject, f.author, p.id, p.sha, p.subject, b.outcome "
		"FROM bisects b JOIN commits f ON f.id = b.first_bad_id "
		"LEFT JOIN commits p ON p.sha = f.parents[1] "
		"WHERE b.id = $1::bigint AND b.state = 'done'" },
	/* the steps in order: commit, verdict, mean and number of samples */
	[ST_MAIL_BISECT_STEPS] = { "mail_bisect_steps",
		"SELECT c.sha, c.subject, s.verdict, "
		"(SELECT avg(x) FROM unnest(s.samples) x), cardinality(s.samples), s.round, s.role "
		"FROM bisect_steps s JOIN commits c ON c.id = s.commit_id "
		"WHERE s.bisect_id = $1::bigint ORDER BY s.id" },
	[ST_MAIL_REGRESSION_EXISTS] = { "mail_regression_exists",
		"SELECT coalesce(bisect_id, 0) FROM regressions WHERE id = $1::bigint" },
	/* commit $1: its sha and whether its diffstat was collected (sql/0007) */
	[ST_MAIL_DIFFSTAT_LOOKUP] = { "mail_diffstat_lookup",
		"SELECT c.sha, EXISTS (SELECT 1 FROM commit_diffstat d WHERE d.commit_id = c.id) "
		"FROM commits c WHERE c.id = $1::bigint" },
	/* $1 commit id, $2 [{path, ins, del}] (null counts: binary), $3 files, $4 ins, $5 del;
	 * the first writer wins (a concurrent second one stores nothing) */
	[ST_MAIL_DIFFSTAT_STORE] = { "mail_diffstat_store",
		"WITH d AS (INSERT INTO commit_diffstat (commit_id, files_changed, insertions, deletions) "
		"VALUES ($1::bigint, $3::integer, $4::bigint, $5::bigint) ON CONFLICT (commit_id) "
		"DO NOTHING RETURNING commit_id) "
		"INSERT INTO commit_files (commit_id, path, insertions, deletions) "
		"SELECT d.commit_id, f.path, f.ins, f.del FROM d, "
		"jsonb_to_recordset($2::jsonb) AS f (path text, ins integer, del integer) "
		"ON CONFLICT DO NOTHING" },
	[ST_MAIL_DIFFSTAT] = { "mail_diffstat",
		"SELECT files_changed, insertions, deletions FROM commit_diffstat "
		"WHERE commit_id = $1::bigint" },
	/* every file commit $1 touched, by path; -1 counts: binary */
	[ST_MAIL_COMMIT_FILES] = { "mail_commit_files",
		"SELECT path, coalesce(insertions, -1), coalesce(deletions, -1) FROM commit_files "
		"WHERE commit_id = $1::bigint ORDER BY path" },
	/* every metric of setup $1 with ok runs at both base $2 and head $3: per-run means
	 * (as GET /api/v1/compare) */
	[ST_MAIL_COMPARE] = { "mail_compare",
		"SELECT m.id, m.name, x.a::text, x.b::text, m.higher_is_better FROM "
		"(SELECT v.metric_id, array_agg(v.mean) FILTER (WHERE r.commit_id = $2::bigint) AS a, "
		"array_agg(v.mean) FILTER (WHERE r.commit_id = $3::bigint) AS b "
		"FROM runs r JOIN run_values v ON v.run_id = r.id WHERE r.setup_id = $1::bigint "
		"AND r.commit_id IN ($2::bigint, $3::bigint) AND r.status = 'ok' AND v.mean IS NOT NULL "
		"GROUP BY v.metric_id) x JOIN metrics m ON m.id = x.metric_id "
		"WHERE x.a IS NOT NULL AND x.b IS NOT NULL ORDER BY m.name" },
	/* the test machine of the newest run of setup $1 at commit $2: host columns, then
	 * what the worker says of the guest (runs.extra: accel, cpus, guest {}) and the mode */
	[ST_MAIL_MACHINE] = { "mail_machine",
		"SELECT ma.arch, ma.nr_cpus, ma.memory_mb, ma.cpu_model, ru.extra->>'accel', "
		"ru.extra->'guest'->>'arch', ru.extra->'guest'->>'nr_cpus', "
		"ru.extra->'guest'->>'memory_mb', ru.extra->'guest'->>'icount', ru.extra->>'cpus', s.mode "
		"FROM runs ru JOIN setups s ON s.id = ru.setup_id "
		"LEFT JOIN machines ma ON ma.id = ru.machine_id "
		"WHERE ru.setup_id = $1::bigint AND ru.commit_id = $2::bigint "
		"ORDER BY ru.id DESC LIMIT 1" },
	/* web8 (kconfig diff, report text): add below */
	/*
	 * The mails of regression $1 as rendered (read scope: no recipients, no
	 * errors), newest first: its own rows and those of its bisect (a bisect
	 * report names the regression only once the mailer renders it); one row
	 * only when the regression exists
	 */
	[ST_REGRESSION_REPORT_JSON] = { "regression_report_json",
		"SELECT json_build_object('regression_id', r.id, 'mails', "
		"coalesce(json_agg(json_build_object('id', o.id, 'kind', o.kind, 'state', o.state, "
		"'rendered', o.subject IS NOT NULL, 'subject', o.subject, 'message_id', o.message_id, "
		"'in_reply_to', o.in_reply_to, 'bisect_id', o.bisect_id, 'created_at', o.created_at, "
		"'sent_at', o.sent_at, 'body', o.body) ORDER BY o.id DESC) "
		"FILTER (WHERE o.id IS NOT NULL), '[]'))::text "
		"FROM regressions r LEFT JOIN outbox o ON (o.regression_id = r.id OR "
		"(r.bisect_id IS NOT NULL AND o.bisect_id = r.bisect_id)) "
		"AND o.state IN ('queued', 'sent', 'dry_run') WHERE r.id = $1::bigint GROUP BY r.id" },
	/* the .config job $1 stored, its commit sha and subject */
	[ST_KCONFIG_JOB] = { "kconfig_job",
		"SELECT j.kconfig_text, c.sha, c.subject FROM jobs j JOIN commits c ON c.id = j.commit_id "
		"WHERE j.id = $1::bigint" },
#define KCONFIG_ENDS \
	"g.id, g.sha, g.subject, bd.id, bd.sha, bd.subject, fb.id, fb.sha, fb.subject, " \
	"p.id, p.sha, p.subject "
	/* regression $1: setup, kconfig, compiler, bisect, then (id, sha, subject) of the last
	 * good and first bad commit, the done bisect's first bad commit and its first parent */
	[ST_KCONFIG_REGRESSION_ENDS] = { "kconfig_regression_ends",
		"SELECT r.setup_id, s.kconfig, s.compiler, r.bisect_id, " KCONFIG_ENDS
		"FROM regressions r JOIN setups s ON s.id = r.setup_id "
		"JOIN commits g ON g.id = r.good_commit_id JOIN commits bd ON bd.id = r.bad_commit_id "
		"LEFT JOIN bisects b ON b.id = r.bisect_id AND b.state = 'done' "
		"LEFT JOIN commits fb ON fb.id = b.first_bad_id "
		"LEFT JOIN commits p ON p.sha = fb.parents[1] WHERE r.id = $1::bigint" },
	/* bisect $1: the same columns, the range being the bisect's good..bad */
	[ST_KCONFIG_BISECT_ENDS] = { "kconfig_bisect_ends",
		"SELECT rr.setup_id, b.kconfig, b.compiler, b.id, " KCONFIG_ENDS
		"FROM bisects b JOIN commits g ON g.id = b.good_id JOIN commits bd ON bd.id = b.bad_id "
		"LEFT JOIN commits fb ON fb.id = b.first_bad_id AND b.state = 'done' "
		"LEFT JOIN commits p ON p.sha = fb.parents[1] "
		"LEFT JOIN regressions rr ON rr.id = b.regression_id WHERE b.id = $1::bigint" },
	/* the build of commit $1 with kconfig $2 (compiler $3) that stored a .config: the
	 * bisect $4's own jobs first, then jobs with runs of setup $5, then ok ones, newest */
	[ST_KCONFIG_PICK_JOB] = { "kconfig_pick_job",
		"SELECT j.id, j.kconfig_text FROM jobs j WHERE j.commit_id = $1::bigint "
		"AND j.kconfig = $2 AND ($3::text IS NULL OR j.compiler = $3) "
		"AND j.kconfig_text IS NOT NULL "
		"ORDER BY coalesce(j.bisect_id = $4::bigint, false) DESC, "
		"EXISTS (SELECT 1 FROM runs ru WHERE ru.job_id = j.id AND ru.setup_id = $5::bigint) DESC, "
		"coalesce(j.outcome = 'ok', false) DESC, j.id DESC LIMIT 1" },
};

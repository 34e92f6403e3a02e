/* Statements of A/B requests (api/requests.c, abtest.c); see db.h and sql/0016. */
#include "server/db/stmts.h"

/* a request's state as shown: the stored one once final, else from its jobs */
#define REQ_STATE                                                                                \
	"CASE WHEN rq.state IN ('resolving', 'done', 'failed', 'cancelled') THEN rq.state "      \
	"WHEN EXISTS (SELECT 1 FROM jobs j WHERE j.request_id = rq.id AND j.state <> 'queued') " \
	"THEN 'running' ELSE 'queued' END"
/* field F of the first head run's extra (the worker's patch-id of the series), jsonb */
#define REQ_HEAD_RUN(F)                                                            \
	"(SELECT r.extra->'" F "' FROM runs r JOIN jobs k ON k.id = r.job_id "     \
	"WHERE k.request_id = rq.id AND k.ab_side = 'head' AND r.extra ? '" F "' " \
	"ORDER BY r.id LIMIT 1)"
#define REQ_SUMMARY                                                                                                          \
	"'id', rq.id, 'state', " REQ_STATE ", 'tree', tr.name, "                                                             \
	"'base', json_build_object('ref', rq.base_ref, 'sha', rq.base_sha), "                                                \
	"'head', json_build_object('ref', rq.head_ref, 'sha', rq.head_sha), "                                                \
	"'patches', CASE WHEN rq.patches IS NULL THEN NULL ELSE json_build_object("                                          \
	"'mbox_url', '/api/v1/requests/' || rq.id || '/mbox', "                                                              \
	"'count', rq.nr_patches, 'bytes', octet_length(rq.patches), 'subject', rq.spec->'patch_subject', "                   \
	"'patch_id', coalesce(to_jsonb(rq.patch_id), " REQ_HEAD_RUN(                                                         \
		"patch_id") "), "                                                                                            \
			    "'patch_ids', coalesce(rq.patch_ids, " REQ_HEAD_RUN(                                             \
				    "patch_ids") ")) END, "                                                                  \
						 "'targets', rq.spec->'targets', 'testcases', rq.spec->'testcases', "        \
						 "'verdict', rq.verdict, 'fail_reason', rq.fail_reason, 'label', rq.label, " \
						 "'url', '/api/v1/requests/' || rq.id, 'created_at', rq.created_at, "        \
						 "'finished_at', rq.finished_at, 'plan', rq.spec->'plan'"

/*
 * The result mail's reads (request_mail.c): a JSON value of a request's
 * spec or result as a typed column, NULL (0 for JINT) when it is not of
 * that type.
 */
#define JSTR(X) "CASE WHEN jsonb_typeof(" X ") = 'string' THEN (" X ") #>> '{}' END"
#define JNUM(X) "CASE WHEN jsonb_typeof(" X ") = 'number' THEN (" X ")::text::float8 END"
#define JINT(X)                                                                      \
	"CASE WHEN jsonb_typeof(" X ") = 'number' AND (" X ")::text ~ '^-?[0-9]+$' " \
	"THEN (" X ")::text::bigint ELSE 0 END"
/* the elements x.v of array X of request $1 in their order (a non-array: none) */
#define REQ_ELEMENTS(X, FN)                                                            \
	"FROM requests rq, " FN "(CASE WHEN jsonb_typeof(" X ") = 'array' THEN " X " " \
	"ELSE '[]'::jsonb END) WITH ORDINALITY x(v, i) WHERE rq.id = $1::bigint ORDER BY x.i"

const struct db_stmt_def db_stmts_requests[DB_NR_STMTS] = {
	/* $1 request: cancels its jobs not yet finished (queued or leased) */
	[ST_REQUEST_CANCEL_JOBS] = { "request_cancel_jobs",
				     "UPDATE jobs SET state = 'cancelled', finished_at = now(), phase = 'cancelled', "
				     "lease_expires_at = NULL, fail_reason = 'the request was cancelled', "
				     "phase_history = phase_history || jsonb_build_array(jsonb_build_object("
				     "'phase', 'cancelled', 'at', now())) "
				     "WHERE request_id = $1::bigint AND state IN ('queued', 'leased') RETURNING id" },
	[ST_REQUEST_EXISTS] = { "request_exists", "SELECT 1 FROM requests WHERE id = $1::bigint" },
	/* $1 request $2 state $3 verdict $4 result (jsonb) $5 fail reason $6 head sha (NULL: keep):
	 * only a request not final yet changes */
	[ST_REQUEST_FINISH] = { "request_finish",
				"UPDATE requests SET state = $2, verdict = $3, result = $4::jsonb, fail_reason = $5, "
				"head_sha = coalesce($6, head_sha), finished_at = now(), "
				"patch_id = (SELECT x.v FROM (SELECT " REQ_HEAD_RUN(
					"patch_id") " #>> '{}' AS v "
						    "FROM requests rq WHERE rq.id = $1::bigint) x WHERE x.v ~ '^[0-9a-f]{40}$'), "
						    "patch_ids = (SELECT x.v FROM (SELECT " REQ_HEAD_RUN(
							    "patch_ids") " AS v "
									 "FROM requests rq WHERE rq.id = $1::bigint) x WHERE jsonb_typeof(x.v) = 'array') "
									 "WHERE id = $1::bigint AND state IN ('resolving', 'queued', 'running') RETURNING id" },
	/* $1 tree $2 base ref $3 base sha $4 head ref $5 head sha $6 patches $7 nr_patches
	 * $8 spec $9 notify $10 label $11 token; no base sha: stored to be resolved */
	[ST_REQUEST_INSERT] = { "request_insert",
				"INSERT INTO requests (tree_id, base_ref, base_sha, head_ref, head_sha, patches, "
				"nr_patches, spec, notify, label, submitted_by, state) VALUES ($1::bigint, $2, $3, "
				"$4, $5, $6, $7::integer, $8::jsonb, $9, $10, $11::bigint, "
				"CASE WHEN $3::text IS NULL THEN 'resolving' ELSE 'queued' END) RETURNING id" },
	/* the requests waiting for their refs, oldest first: id, tree id, tree name */
	[ST_REQUESTS_RESOLVING] = { "requests_resolving",
				    "SELECT rq.id, rq.tree_id, tr.name FROM requests rq "
				    "JOIN trees tr ON tr.id = rq.tree_id WHERE rq.state = 'resolving' "
				    "ORDER BY rq.id LIMIT 200" },
	/* $1 request waiting for its refs: the submission as checked, its patches, its token */
	[ST_REQUEST_SUBMISSION] = { "request_submission",
				    "SELECT spec::text, patches, submitted_by FROM requests "
				    "WHERE id = $1::bigint AND state = 'resolving'" },
	/* $1 request $2 base sha $3 head sha (NULL: patches) $4 spec: resolved, queued */
	[ST_REQUEST_RESOLVED] = { "request_resolved",
				  "UPDATE requests SET base_sha = $2, head_sha = $3, spec = $4::jsonb, "
				  "state = 'queued' WHERE id = $1::bigint AND state = 'resolving' RETURNING id" },
	/* $1 tree $2 first $3 last request id $4 reason: those of the tree still resolving fail */
	[ST_REQUEST_RESOLVE_FAILED] = { "request_resolve_failed",
					"UPDATE requests SET state = 'failed', fail_reason = $4, finished_at = now() "
					"WHERE tree_id = $1::bigint AND id BETWEEN $2::bigint AND $3::bigint "
					"AND state = 'resolving' RETURNING id" },
	/* ST_JOB_INSERT's $1..$13, then $14 request $15 side $16 round $17 group */
	[ST_REQUEST_JOB_INSERT] = { "request_job_insert",
				    "INSERT INTO jobs (tree_id, commit_id, testcase_id, params, kconfig, compiler, arch, "
				    "tbox_group, need_capability, repeat, priority, max_attempts, submitted_by, request_id, "
				    "ab_side, ab_pair, ab_group) VALUES ($1::bigint, $2::bigint, $3::integer, $4::jsonb, "
				    "$5, $6, $7, $8, $9, $10::integer, $11::integer, $12::integer, $13::bigint, "
				    "$14::bigint, $15, $16::integer, $17) RETURNING id" },
	/* $1 request: one object with the summary, the jobs, what waits for a worker, the result */
	[ST_REQUEST_JSON] = { "request_json",
			      "SELECT json_build_object(" REQ_SUMMARY ", "
			      "'kconfig', rq.spec->'kconfig', 'compiler', rq.spec->'compiler', "
			      "'repeat', rq.spec->'repeat', 'rounds', rq.spec->'rounds', "
			      "'repeat_why', rq.spec->'repeat_why', 'noise', rq.spec->'noise', "
			      "'min_change_pct', rq.spec->'min_change_pct', 'measure', rq.spec->'measure', "
			      "'notify', rq.notify, 'groups', rq.spec->'groups', "
			      "'progress', (SELECT json_object_agg(s.side, json_build_object('jobs', s.jobs, "
			      "'finished', s.finished, 'runs', s.runs, 'runs_needed', s.needed)) FROM ("
			      "SELECT j.ab_side AS side, count(*) AS jobs, "
			      "count(*) FILTER (WHERE j.state IN ('done', 'failed', 'cancelled')) AS finished, "
			      "sum(j.repeat) AS needed, (SELECT count(*) FROM runs r JOIN jobs k ON k.id = r.job_id "
			      "WHERE k.request_id = rq.id AND k.ab_side = j.ab_side) AS runs "
			      "FROM jobs j WHERE j.request_id = rq.id GROUP BY j.ab_side) s), "
			      "'jobs', (SELECT coalesce(json_agg(json_build_object('id', j.id, 'side', j.ab_side, "
			      "'round', j.ab_pair, 'group', j.ab_group::integer, 'state', j.state, 'phase', j.phase, "
			      "'outcome', j.outcome, 'arch', j.arch, 'tbox_group', j.tbox_group, "
			      "'kconfig', j.kconfig, 'repeat', j.repeat, 'machine', m.hostname, "
			      "'fail_reason', j.fail_reason, 'progress', j.progress, 'leased_at', j.leased_at, "
			      "'finished_at', j.finished_at, 'runs', (SELECT count(*) FROM runs r WHERE r.job_id = j.id)) "
			      "ORDER BY j.id), '[]') FROM jobs j "
			      "LEFT JOIN machines m ON m.id = j.leased_by WHERE j.request_id = rq.id), "
			      "'waiting_for', (SELECT coalesce(json_agg(DISTINCT w.target), '[]') FROM ("
			      "SELECT coalesce(j.tbox_group, j.arch, 'any') || ' (' || j.need_capability || ')' AS target "
			      "FROM jobs j WHERE j.request_id = rq.id AND j.state = 'queued' AND NOT EXISTS ("
			      "SELECT 1 FROM machines m WHERE (j.arch IS NULL OR m.arch = j.arch) "
			      "AND (j.tbox_group IS NULL OR m.tbox_group = j.tbox_group) "
			      "AND j.need_capability = ANY (m.capabilities))) w), "
			      "'samples', (SELECT coalesce(json_agg(json_build_object('group', x.g, 'side', x.side, "
			      "'metric', x.name, 'values', x.vals) ORDER BY x.g, x.name, x.side), '[]') FROM ("
			      "SELECT j.ab_group::integer AS g, j.ab_side AS side, mt.name, array_agg(v.mean ORDER BY r.id) AS vals "
			      "FROM jobs j JOIN runs r ON r.job_id = j.id AND r.status = 'ok' "
			      "JOIN LATERAL run_points(r.id, r.received_at) v ON true JOIN metrics mt ON mt.id = v.metric_id "
			      "WHERE j.request_id = rq.id AND v.mean IS NOT NULL AND NOT mt.is_monitor GROUP BY 1, 2, 3) x), "
			      "'result', rq.result, 'reproduce', rq.spec->'reproduce', "
			      "'reproduce_local', rq.spec->'reproduce_local')::text "
			      "FROM requests rq JOIN trees tr ON tr.id = rq.tree_id WHERE rq.id = $1::bigint" },
	/* clang-format off */
	/* $1 request: what its result mail says (request_mail.h), one row */
	[ST_REQUEST_MAIL] = { "request_mail",
		"SELECT " REQ_STATE ", rq.verdict, rq.fail_reason, tr.name, "
		"rq.base_ref, rq.base_sha, rq.head_ref, rq.head_sha, "
		"(rq.patches IS NOT NULL)::integer, coalesce(rq.nr_patches, 0), "
		JSTR("rq.spec->'patch_subject'") ", "
		JSTR("coalesce(to_jsonb(rq.patch_id), " REQ_HEAD_RUN("patch_id") ")") ", "
		JSTR("rq.spec->'compiler'") ", "
		JINT("rq.spec->'repeat'") ", "
		JSTR("rq.spec->'repeat_why'") ", "
		"rq.label, rq.notify, "
		JSTR("rq.spec->'reproduce'") " "
		"FROM requests rq JOIN trees tr ON tr.id = rq.tree_id WHERE rq.id = $1::bigint" },
	/* $1 request: its groups in order: target, testcase, kconfig, params (JSON object text) */
	[ST_REQUEST_MAIL_GROUPS] = { "request_mail_groups",
		"SELECT " JSTR("x.v->'target'") ", "
		JSTR("x.v->'testcase'") ", "
		JSTR("x.v->'kconfig'") ", "
		"CASE WHEN jsonb_typeof(x.v->'params') = 'object' THEN (x.v->'params')::text END "
		REQ_ELEMENTS("rq.spec->'groups'", "jsonb_array_elements") },
	/* $1 request: its verdict's rows in order (abtest_verdict()'s) */
	[ST_REQUEST_MAIL_ROWS] = { "request_mail_rows",
		"SELECT " JINT("x.v->'group'") ", "
		JSTR("x.v->'target'") ", "
		JSTR("x.v->'metric'") ", "
		JSTR("x.v->'change'") ", "
		"coalesce(x.v->'monitor' = 'true'::jsonb, false)::integer, "
		JNUM("x.v->'hl_pct'") ", "
		JNUM("x.v->'mean'->0") ", "
		JNUM("x.v->'mean'->1") ", "
		JNUM("x.v->'stddev_pct'->0") ", "
		JNUM("x.v->'stddev_pct'->1") " "
		REQ_ELEMENTS("rq.result->'rows'", "jsonb_array_elements") },
	/* $1 request: its targets in order */
	[ST_REQUEST_MAIL_TARGETS] = { "request_mail_targets",
		"SELECT x.v " REQ_ELEMENTS("rq.spec->'targets'", "jsonb_array_elements_text") },
	/* $1 request: the commands that run its data points again (abtest_reproduce_local()'s) */
	[ST_REQUEST_MAIL_LOCAL] = { "request_mail_local",
		"SELECT " JSTR("x.v->'target'") ", "
		JSTR("x.v->'testcase'") ", "
		JSTR("x.v->'side'") ", "
		JSTR("x.v->'command'") ", "
		JSTR("x.v->'curl'") " "
		REQ_ELEMENTS("rq.spec->'reproduce_local'", "jsonb_array_elements") },
	/* clang-format on */
	/* $1 request: the row locked, the jobs' tally, the first failure, the derived head */
	[ST_REQUEST_LOCK] = { "request_lock",
			      "SELECT rq.state, rq.spec::text, "
			      "(SELECT count(*) FROM jobs j WHERE j.request_id = rq.id), "
			      "(SELECT count(*) FROM jobs j WHERE j.request_id = rq.id "
			      "AND j.state IN ('done', 'failed', 'cancelled')), "
			      "(SELECT count(*) FROM jobs j WHERE j.request_id = rq.id "
			      "AND (j.state = 'failed' OR (j.state = 'done' AND j.outcome <> 'ok'))), "
			      "(SELECT format('%s job %s (round %s, %s): %s%s', k.ab_side, k.id, k.ab_pair, "
			      "coalesce(k.tbox_group, k.arch, 'any'), CASE WHEN k.state = 'done' THEN k.outcome "
			      "ELSE k.state END, coalesce(': ' || nullif(k.fail_reason, ''), '') "
			      "|| coalesce(': ' || right(nullif(k.log_tail, ''), 400), '')) "
			      "FROM jobs k WHERE k.request_id = rq.id AND (k.state = 'failed' "
			      "OR (k.state = 'done' AND k.outcome <> 'ok')) ORDER BY k.id LIMIT 1), "
			      "(SELECT c.sha FROM runs r JOIN jobs k ON k.id = r.job_id JOIN commits c ON c.id = r.commit_id "
			      "WHERE k.request_id = rq.id AND k.ab_side = 'head' ORDER BY r.id LIMIT 1) "
			      "FROM requests rq WHERE rq.id = $1::bigint FOR UPDATE" },
	/* the request job $1 belongs to (no row: none) */
	[ST_REQUEST_OF_JOB] = { "request_of_job",
				"SELECT request_id FROM jobs WHERE id = $1::bigint AND request_id IS NOT NULL" },
	/* $1 request: its mbox as submitted (NULL for a head commit; no row: no request) */
	[ST_REQUEST_PATCHES] = { "request_patches",
				 "SELECT patches FROM requests WHERE id = $1::bigint" },
	/* $1 request: each (group, side, metric)'s per-run means, runs in id order */
	[ST_REQUEST_SAMPLES] = { "request_samples",
				 "SELECT j.ab_group::integer, j.ab_side = 'head', mt.name, "
				 "coalesce(mt.higher_is_better::integer, -1), mt.is_monitor::integer, "
				 "array_agg(v.mean ORDER BY r.id)::text "
				 "FROM jobs j JOIN runs r ON r.job_id = j.id AND r.status = 'ok' "
				 "JOIN LATERAL run_points(r.id, r.received_at) v ON true JOIN metrics mt ON mt.id = v.metric_id "
				 "WHERE j.request_id = $1::bigint AND v.mean IS NOT NULL "
				 "GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 3, 2" },
	/* $1 request: cancelled unless final already */
	[ST_REQUEST_SET_CANCELLED] = { "request_set_cancelled",
				       "UPDATE requests SET state = 'cancelled', finished_at = now() "
				       "WHERE id = $1::bigint AND state IN ('resolving', 'queued', 'running') RETURNING id" },
	/* $1 state (NULL = any), $2 limit: newest first */
	[ST_REQUESTS_JSON] = { "requests_json",
			       "SELECT coalesce(json_agg(x.o ORDER BY x.id DESC), '[]')::text FROM ("
			       "SELECT rq.id, json_build_object(" REQ_SUMMARY
			       ") AS o FROM requests rq "
			       "JOIN trees tr ON tr.id = rq.tree_id WHERE $1::text IS NULL OR " REQ_STATE
			       " = $1 "
			       "ORDER BY rq.id DESC LIMIT $2::integer) x" },
	/*
	 * The measured noise of a setup's history: per
	 * metric, the within-commit spread of run means at every commit with 2 or
	 * more ok runs, pooled: sqrt(sum((n_i - 1) s_i^2 / m_i^2) / sum(n_i - 1)) as
	 * percent (the pooled coefficient of variation), with its degrees of
	 * freedom, runs and commits. $1 testcase $2 params (jsonb, measure
	 * included) $3 kconfig $4 compiler $5 mode $6 tbox_group (NULL: any
	 * tbox_group whose machines are of arch $7)
	 */
	[ST_REQUEST_NOISE] = { "request_noise",
			       "SELECT m.name, m.is_monitor::integer, sum(x.n - 1)::bigint, "
			       "sqrt(sum((x.n - 1) * x.var / (x.mean * x.mean)) / sum(x.n - 1)) * 100, "
			       "sum(x.n)::bigint, count(*) FROM ("
			       "SELECT v.metric_id, r.setup_id, r.commit_id, count(*) AS n, var_samp(v.mean) AS var, "
			       "avg(v.mean) AS mean FROM setups s JOIN testcases t ON t.id = s.testcase_id "
			       "JOIN runs r ON r.setup_id = s.id AND r.status = 'ok' "
			       "JOIN LATERAL run_points(r.id, r.received_at) v ON true "
			       "WHERE t.name = $1 AND s.params = $2::jsonb AND s.kconfig = $3 AND s.compiler = $4 "
			       "AND s.mode = $5 AND (s.tbox_group = $6 OR ($6::text IS NULL AND s.tbox_group IN ("
			       "SELECT tbox_group FROM machines WHERE arch = $7))) AND v.mean IS NOT NULL "
			       "GROUP BY 1, 2, 3 HAVING count(*) >= 2 AND avg(v.mean) <> 0) x "
			       "JOIN metrics m ON m.id = x.metric_id GROUP BY m.name, m.is_monitor ORDER BY m.name" },
	/* the arch the machines of tbox_group $1 have (NULL when none registered) */
	[ST_REQUEST_TBOX_ARCH] = { "request_tbox_arch",
				   "SELECT arch FROM machines WHERE tbox_group = $1 ORDER BY last_seen DESC LIMIT 1" },
};

/* Statements of outbox, report input, subscriptions (read by db/mail.c, db/outbox.c); see db.h. */
#include "server/db/stmts.h"

const struct db_stmt_def db_stmts_mail[DB_NR_STMTS] = {
	/* a finished bisect's culprit (first bad commit) and its first parent */
	[ST_MAIL_BISECT] = { "mail_bisect",
			     "SELECT f.id, f.sha, f.subject, f.author, p.id, p.sha, p.subject, b.outcome "
			     "FROM bisects b JOIN commits f ON f.id = b.first_bad_id "
			     "LEFT JOIN commits p ON p.sha = f.parents[1] "
			     "WHERE b.id = $1::bigint AND b.state = 'done'" },
	[ST_MAIL_BISECT_REGRESSION] = { "mail_bisect_regression",
					"SELECT id FROM regressions WHERE bisect_id = $1::bigint ORDER BY id LIMIT 1" },
	/* the steps in order: commit, verdict, mean and number of samples */
	[ST_MAIL_BISECT_STEPS] = { "mail_bisect_steps",
				   "SELECT c.sha, c.subject, s.verdict, "
				   "(SELECT avg(x) FROM unnest(s.samples) x), cardinality(s.samples), s.round, s.role "
				   "FROM bisect_steps s JOIN commits c ON c.id = s.commit_id "
				   "WHERE s.bisect_id = $1::bigint ORDER BY s.id" },
	/* $1 bisect $2 commit: the commit whose runs stood for it (same kernel image) */
	[ST_MAIL_SAME_IMAGE] = { "mail_same_image",
				 SAME_IMAGE_STAND_IN("$1::bigint", "$2::bigint") },
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
			      "FROM runs r JOIN LATERAL run_points(r.id, r.received_at) v ON true WHERE r.setup_id = $1::bigint "
			      "AND r.commit_id IN ($2::bigint, $3::bigint) AND r.status = 'ok' AND v.mean IS NOT NULL "
			      "GROUP BY v.metric_id) x JOIN metrics m ON m.id = x.metric_id "
			      "WHERE x.a IS NOT NULL AND x.b IS NOT NULL ORDER BY m.name" },
	[ST_MAIL_DIFFSTAT] = { "mail_diffstat",
			       "SELECT files_changed, insertions, deletions FROM commit_diffstat "
			       "WHERE commit_id = $1::bigint" },
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
	/* the test machine of the newest run of setup $1 at commit $2: host columns, then
	 * what the worker says of the guest (runs.extra: accel, cpus, guest {}) and the mode,
	 * then the guest's shape (cpu_model, pinned, hugepages, NUMA nodes) */
	[ST_MAIL_MACHINE] = { "mail_machine",
			      "SELECT ma.arch, ma.nr_cpus, ma.memory_mb, ma.cpu_model, ru.extra->>'accel', "
			      "ru.extra->'guest'->>'arch', ru.extra->'guest'->>'nr_cpus', "
			      "ru.extra->'guest'->>'memory_mb', ru.extra->'guest'->>'icount', ru.extra->>'cpus', s.mode, "
			      "ru.extra->'guest'->>'cpu_model', "
			      "(jsonb_typeof(ru.extra->'guest'->'pinned') = 'array')::text, "
			      "ru.extra->'guest'->>'hugepages', CASE WHEN jsonb_typeof(ru.extra->'guest'->'numa') "
			      "= 'array' THEN jsonb_array_length(ru.extra->'guest'->'numa') END "
			      "FROM runs ru JOIN setups s ON s.id = ru.setup_id "
			      "LEFT JOIN machines ma ON ma.id = ru.machine_id "
			      "WHERE ru.setup_id = $1::bigint AND ru.commit_id = $2::bigint "
			      "ORDER BY ru.id DESC LIMIT 1" },
	/* what a report of regression $1 says (db_mail_regression() names the columns) */
	[ST_MAIL_REGRESSION] = { "mail_regression",
				 "SELECT r.kind, r.change_pct, m.name, t.name, s.params::text, s.kconfig, s.compiler, "
				 "s.tbox_group, s.mode, g.sha, g.subject, b.sha, b.subject, b.author, "
				 "coalesce(tr.name, ''), x.branch, x.arch, x.nr_cpus, x.memory_mb, x.cpu_model, "
				 "r.setup_id, r.good_commit_id, r.bad_commit_id, r.metric_id, "
				 "coalesce(r.bisect_id, 0), b.parents[1], r.state, r.hl_pct, m.higher_is_better, "
				 "r.ci_lo_pct, r.ci_hi_pct, r.shift, r.noise_sigma, r.commits_after, r.p_value "
				 "FROM regressions r JOIN metrics m ON m.id = r.metric_id "
				 "JOIN setups s ON s.id = r.setup_id JOIN testcases t ON t.id = s.testcase_id "
				 "JOIN commits g ON g.id = r.good_commit_id JOIN commits b ON b.id = r.bad_commit_id "
				 "LEFT JOIN LATERAL (SELECT ru.branch, ru.tree_id, ma.arch, ma.nr_cpus, ma.memory_mb, "
				 "ma.cpu_model FROM runs ru LEFT JOIN machines ma ON ma.id = ru.machine_id "
				 "WHERE ru.setup_id = r.setup_id AND ru.commit_id = r.bad_commit_id "
				 "ORDER BY ru.id DESC LIMIT 1) x ON true "
				 "LEFT JOIN trees tr ON tr.id = coalesce(x.tree_id, b.tree_id) WHERE r.id = $1::bigint" },
	[ST_MAIL_REGRESSION_EXISTS] = { "mail_regression_exists",
					"SELECT coalesce(bisect_id, 0) FROM regressions WHERE id = $1::bigint" },
	/* subscriptions of tree $1 and testcase $2; metric globs and paths checked in C */
	[ST_MAIL_SUBS_MATCH] = { "mail_subs_match",
				 "SELECT email, coalesce(metric, ''), array_to_string(paths, E'\n') FROM subscriptions "
				 "WHERE (tree IS NULL OR tree = $1) AND (testcase IS NULL OR testcase = $2) ORDER BY id" },
	/* the oldest due queued row, locked for this transaction */
	[ST_OUTBOX_CLAIM] = { "outbox_claim",
			      "SELECT id, kind, coalesce(regression_id, 0), coalesce(bisect_id, 0), "
			      "subject IS NOT NULL, attempts, coalesce(request_id, 0) FROM outbox "
			      "WHERE state = 'queued' AND next_attempt_at <= now() "
			      "ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED" },
	/* $1 request: its result mail, when it has an address to notify */
	[ST_OUTBOX_INSERT_REQUEST] = { "outbox_insert_request",
				       "INSERT INTO outbox (kind, request_id) SELECT 'request', id FROM requests "
				       "WHERE id = $1::bigint AND notify IS NOT NULL RETURNING id" },
	/* every held row queued again (a server whose configuration can mail) */
	[ST_OUTBOX_RELEASE_HELD] = { "outbox_release_held",
				     "UPDATE outbox SET state = 'queued', last_error = NULL, "
				     "next_attempt_at = now() WHERE state = 'held' RETURNING id" },
	/*
	 * The first report before row $2 about one of the regressions $1 (an
	 * array text) or their bisects $3: the thread a report of the same
	 * culprit on another arch replies to
	 */
	[ST_OUTBOX_SIBLING_ROOT] = { "outbox_sibling_root",
				     "SELECT id, coalesce(message_id, ''), coalesce(subject, '') FROM outbox "
				     "WHERE (regression_id = ANY($1::bigint[]) OR bisect_id = ANY($3::bigint[])) "
				     "AND kind IN ('bisect', 'range') AND id < $2::bigint "
				     "AND state IN ('queued', 'held', 'sent', 'dry_run') ORDER BY id LIMIT 1" },
	[ST_OUTBOX_DEFER] = { "outbox_defer",
			      "UPDATE outbox SET next_attempt_at = now() + interval '1 second' "
			      "WHERE id = $1::bigint" },
	/* $2 'sent' or 'dry_run' */
	[ST_OUTBOX_DONE] = { "outbox_done",
			     "UPDATE outbox SET state = $2, attempts = attempts + 1, sent_at = now(), "
			     "last_error = NULL WHERE id = $1::bigint" },
	/* $2 'failed' or 'skipped', $3 why */
	[ST_OUTBOX_GIVEUP] = { "outbox_giveup",
			       "UPDATE outbox SET state = $2, last_error = $3 WHERE id = $1::bigint" },
	/* $1 kind, $2 regression id, $3 bisect id (NULL when not known) */
	[ST_OUTBOX_INSERT] = { "outbox_insert",
			       "INSERT INTO outbox (kind, regression_id, bisect_id) "
			       "VALUES ($1, $2::bigint, $3::bigint) RETURNING id" },
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
	/* $1 id, $2 subject, $3 body, $4 message id, $5 in-reply-to, $6 recipients
	 * (space-separated), $7 regression id, $8 thread root id */
	[ST_OUTBOX_RENDER] = { "outbox_render",
			       "UPDATE outbox SET subject = $2, body = $3, message_id = $4, in_reply_to = $5, "
			       "recipients = string_to_array($6, ' '), regression_id = $7::bigint, "
			       "thread_id = $8::bigint WHERE id = $1::bigint" },
	/* exponential backoff: 2^attempts seconds, at most $3 */
	[ST_OUTBOX_RETRY] = { "outbox_retry",
			      "UPDATE outbox SET attempts = attempts + 1, last_error = $2, "
			      "next_attempt_at = now() + make_interval(secs => least($3::float8, "
			      "power(2, least(attempts, 30)))) WHERE id = $1::bigint" },
	[ST_OUTBOX_ROW] = { "outbox_row",
			    "SELECT subject, body, message_id, in_reply_to, "
			    "array_to_string(recipients, ' '), array_to_string(cc, ' ') FROM outbox "
			    "WHERE id = $1::bigint" },
	/* the first report of regression $1 before row $2 (the thread root) */
	[ST_OUTBOX_THREAD_ROOT] = { "outbox_thread_root",
				    "SELECT id, coalesce(message_id, ''), coalesce(subject, '') FROM outbox "
				    "WHERE regression_id = $1::bigint AND kind <> 'fixed' AND id < $2::bigint "
				    "AND state IN ('queued', 'held', 'sent', 'dry_run') ORDER BY id LIMIT 1" },
	/*
	 * The mails of regression $1 as rendered (read scope: no recipients, no
	 * errors; a skipped or held one with its reason, "no recipients", "held: smtp_url not
	 * set"), newest first: its own rows and those of its bisect (a bisect report names the
	 * regression only once the mailer renders it); one row only when the regression exists
	 */
	[ST_REGRESSION_REPORT_JSON] = { "regression_report_json",
					"SELECT json_build_object('regression_id', r.id, 'mails', "
					"coalesce(json_agg(json_build_object('id', o.id, 'kind', o.kind, 'state', o.state, "
					"'rendered', o.subject IS NOT NULL, 'subject', o.subject, 'message_id', o.message_id, "
					"'in_reply_to', o.in_reply_to, 'bisect_id', o.bisect_id, 'created_at', o.created_at, "
					"'sent_at', o.sent_at, 'body', o.body, "
					"'reason', CASE WHEN o.state IN ('skipped', 'held') THEN o.last_error END) ORDER BY o.id DESC) "
					"FILTER (WHERE o.id IS NOT NULL), '[]'))::text "
					"FROM regressions r LEFT JOIN outbox o ON (o.regression_id = r.id OR "
					"(r.bisect_id IS NOT NULL AND o.bisect_id = r.bisect_id)) "
					"AND o.state IN ('queued', 'held', 'sent', 'dry_run', 'skipped') WHERE r.id = $1::bigint "
					"GROUP BY r.id" },
	[ST_SUBS_JSON] = { "subs_json",
			   "SELECT coalesce(json_agg(json_build_object('id', id, 'email', email, 'tree', tree, "
			   "'testcase', testcase, 'metric', metric, 'paths', paths, 'created_at', created_at) "
			   "ORDER BY id), '[]')::text FROM subscriptions" },
	[ST_SUB_DELETE] = { "sub_delete",
			    "DELETE FROM subscriptions WHERE id = $1::bigint RETURNING id" },
	[ST_SUB_INSERT] = { "sub_insert",
			    "INSERT INTO subscriptions (email, tree, testcase, metric, paths) "
			    "VALUES ($1, $2, $3, $4, coalesce($5::text[], '{}')) RETURNING id" },
	/* the perf-profile.* metrics of the profiled runs at base $2 and head $3 of setup $1
	 * or of its sibling setups (the same but for setups.monitors: profiled runs have
	 * their own setup, sql/0018); of several, the one with the most values; per-run
	 * means as ST_MAIL_COMPARE. Siblings match on every column but monitors, so this
	 * also runs on a schema without it (then setup $1 is its only sibling). */
	[ST_MAIL_PROFILE_COMPARE] = { "mail_profile_compare",
				      "WITH sib AS (SELECT o.id FROM setups s JOIN setups o ON o.testcase_id = s.testcase_id "
				      "AND o.params_key = s.params_key AND o.kconfig = s.kconfig AND o.compiler = s.compiler "
				      "AND o.tbox_group = s.tbox_group AND o.mode = s.mode WHERE s.id = $1::bigint), "
				      "vals AS (SELECT r.setup_id, r.commit_id, v.metric_id, v.mean FROM runs r "
				      "JOIN LATERAL run_points(r.id, r.received_at) v ON true JOIN metrics m ON m.id = v.metric_id "
				      "WHERE r.setup_id IN (SELECT id FROM sib) AND r.commit_id IN ($2::bigint, $3::bigint) "
				      "AND r.status = 'ok' AND v.mean IS NOT NULL AND m.name LIKE 'perf-profile.%'), "
				      "best AS (SELECT setup_id FROM vals GROUP BY setup_id HAVING count(DISTINCT commit_id) = 2 "
				      "ORDER BY count(*) DESC, setup_id LIMIT 1) "
				      "SELECT m.id, m.name, x.a::text, x.b::text, m.higher_is_better FROM "
				      "(SELECT metric_id, array_agg(mean) FILTER (WHERE commit_id = $2::bigint) AS a, "
				      "array_agg(mean) FILTER (WHERE commit_id = $3::bigint) AS b FROM vals "
				      "WHERE setup_id = (SELECT setup_id FROM best) GROUP BY metric_id) x "
				      "JOIN metrics m ON m.id = x.metric_id WHERE x.a IS NOT NULL AND x.b IS NOT NULL ORDER BY m.name" },
	/* $1 request: per group (jobs.ab_group) with fingerprinted ok runs, the distinct host
	 * fingerprints (sql/0022) of its base runs and of its head runs, JSON arrays */
	[ST_MAIL_REQUEST_FINGERPRINTS] = { "mail_request_fingerprints",
					   "SELECT j.ab_group::integer, coalesce(json_agg(DISTINCT "
					   "r.host_fingerprint) FILTER (WHERE j.ab_side = 'base'), '[]')::text, "
					   "coalesce(json_agg(DISTINCT r.host_fingerprint) FILTER "
					   "(WHERE j.ab_side = 'head'), '[]')::text "
					   "FROM jobs j JOIN runs r ON r.job_id = j.id AND r.status = 'ok' "
					   "WHERE j.request_id = $1::bigint AND r.host_fingerprint IS NOT NULL "
					   "GROUP BY 1 ORDER BY 1" },
};

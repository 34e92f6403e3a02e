/*
 * Typed rows of a report's input (mail.h; mail/mail_gather.c,
 * mail/mailer.c, api/reports.c), the outbox and report JSON reads, and
 * the statements they are made with. Subscriptions are in mail_subs.c.
 */
#include "server/db/mail.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "server/db/pgval.h"
#include "server/db/stmts.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* this file's statements, prepared with the others (db_stmt_table, db_int.h) */
enum mail_stmt {
	ST_MAIL_BISECT,
	ST_MAIL_BISECT_REGRESSION,
	ST_MAIL_BISECT_STEPS,
	ST_MAIL_SAME_IMAGE,
	ST_MAIL_COMMIT_FILES,
	ST_MAIL_COMPARE,
	ST_MAIL_DIFFSTAT,
	ST_MAIL_MACHINE,
	ST_MAIL_REGRESSION,
	ST_MAIL_REGRESSION_EXISTS,
	ST_MAIL_PROFILE_COMPARE,
	ST_MAIL_REQUEST_FINGERPRINTS,
	ST_OUTBOX_JSON,
	ST_REGRESSION_REPORT_JSON,
	NR_MAIL_STMTS
};

static const struct db_stmt_def stmts[NR_MAIL_STMTS] = {
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
	/* the test machine of the newest run of setup $1 at commit $2: host columns, then
	 * what the worker says of the guest (runs.extra: accel, cpus, guest {}) and the mode,
	 * then the guest's shape (cpu_model, pinned, hugepages, NUMA nodes), the tbox_group */
	[ST_MAIL_MACHINE] = { "mail_machine",
			      "SELECT ma.arch, ma.nr_cpus, ma.memory_mb, ma.cpu_model, ru.extra->>'accel', "
			      "ru.extra->'guest'->>'arch', ru.extra->'guest'->>'nr_cpus', "
			      "ru.extra->'guest'->>'memory_mb', ru.extra->'guest'->>'icount', ru.extra->>'cpus', s.mode, "
			      "ru.extra->'guest'->>'cpu_model', "
			      "(jsonb_typeof(ru.extra->'guest'->'pinned') = 'array')::text, "
			      "ru.extra->'guest'->>'hugepages', CASE WHEN jsonb_typeof(ru.extra->'guest'->'numa') "
			      "= 'array' THEN jsonb_array_length(ru.extra->'guest'->'numa') END, s.tbox_group "
			      "FROM runs ru JOIN setups s ON s.id = ru.setup_id "
			      "LEFT JOIN machines ma ON ma.id = ru.machine_id "
			      "WHERE ru.setup_id = $1::bigint AND ru.commit_id = $2::bigint "
			      "ORDER BY ru.id DESC LIMIT 1" },
	/* what a report of regression $1 says (REGR_* below name the columns) */
	[ST_MAIL_REGRESSION] = { "mail_regression",
				 "SELECT r.kind, r.change_pct, m.name, t.name, s.params::text, s.kconfig, s.compiler, "
				 "s.tbox_group, s.mode, g.sha, g.subject, b.sha, b.subject, b.author, "
				 "coalesce(tr.name, ''), x.branch, x.arch, x.nr_cpus, x.memory_mb, x.cpu_model, "
				 "r.setup_id, r.good_commit_id, r.bad_commit_id, r.metric_id, "
				 "coalesce(r.bisect_id, 0), b.parents[1], r.state, r.hl_pct, m.higher_is_better, "
				 "r.ci_lo_pct, r.ci_hi_pct, r.shift, r.noise_sigma, r.commits_after, r.p_value, "
				 "r.mean_before, r.mean_after, r.noise_cycle "
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
};

const struct db_stmt_table db_stmts_mail_report = DB_STMT_TABLE(stmts);

/* ST_MAIL_REGRESSION's columns */
enum {
	REGR_KIND,
	REGR_CHANGE_PCT,
	REGR_METRIC,
	REGR_TESTCASE,
	REGR_PARAMS,
	REGR_KCONFIG,
	REGR_COMPILER,
	REGR_TBOX_GROUP,
	REGR_MODE,
	REGR_GOOD_SHA,
	REGR_GOOD_SUBJECT,
	REGR_BAD_SHA,
	REGR_BAD_SUBJECT,
	REGR_BAD_AUTHOR,
	REGR_TREE,
	REGR_BRANCH,
	REGR_MACHINE_ARCH,
	REGR_NR_CPUS,
	REGR_MEMORY_MB,
	REGR_CPU_MODEL,
	REGR_SETUP_ID,
	REGR_GOOD_COMMIT_ID,
	REGR_BAD_COMMIT_ID,
	REGR_METRIC_ID,
	REGR_BISECT_ID,
	REGR_BAD_PARENT_SHA,
	REGR_STATE,
	REGR_HL_PCT,
	REGR_HIGHER_IS_BETTER,
	REGR_CI_LO_PCT,
	REGR_CI_HI_PCT,
	REGR_SHIFT,
	REGR_NOISE_SIGMA,
	REGR_COMMITS_AFTER,
	REGR_P_VALUE,
	REGR_MEAN_BEFORE,
	REGR_MEAN_AFTER,
	REGR_NOISE_CYCLE
};

/* ST_MAIL_BISECT's columns */
enum {
	BISECT_CULPRIT_ID,
	BISECT_CULPRIT_SHA,
	BISECT_CULPRIT_SUBJECT,
	BISECT_CULPRIT_AUTHOR,
	BISECT_PARENT_ID,
	BISECT_PARENT_SHA,
	BISECT_PARENT_SUBJECT,
	BISECT_OUTCOME
};

/* ST_MAIL_BISECT_STEPS' columns */
enum { STEP_SHA, STEP_SUBJECT, STEP_VERDICT, STEP_MEAN, STEP_NR_SAMPLES, STEP_ROUND, STEP_ROLE };

/* ST_MAIL_SAME_IMAGE's columns (SAME_IMAGE_STAND_IN, stmts.h) */
enum { SAME_IMAGE_ID, SAME_IMAGE_SHA, SAME_IMAGE_SUBJECT };

/* ST_MAIL_COMPARE's and ST_MAIL_PROFILE_COMPARE's columns (per-run means as float8[] text) */
enum { CMP_METRIC_ID, CMP_NAME, CMP_BASE, CMP_HEAD, CMP_HIGHER_IS_BETTER };

/* ST_MAIL_MACHINE's columns */
enum {
	MACHINE_ARCH,
	MACHINE_NR_CPUS,
	MACHINE_MEMORY_MB,
	MACHINE_CPU_MODEL,
	MACHINE_ACCEL,
	MACHINE_GUEST_ARCH,
	MACHINE_GUEST_NR_CPUS,
	MACHINE_GUEST_MEMORY_MB,
	MACHINE_GUEST_ICOUNT,
	MACHINE_CPUS,
	MACHINE_MODE,
	MACHINE_GUEST_CPU_MODEL,
	MACHINE_GUEST_PINNED,
	MACHINE_GUEST_HUGEPAGES,
	MACHINE_GUEST_NUMA_NODES,
	MACHINE_TBOX_GROUP
};

/* ST_MAIL_DIFFSTAT's columns */
enum { DIFFSTAT_FILES, DIFFSTAT_INSERTIONS, DIFFSTAT_DELETIONS };

/* ST_MAIL_COMMIT_FILES' columns */
enum { FILE_PATH, FILE_INSERTIONS, FILE_DELETIONS };

/* ST_MAIL_REQUEST_FINGERPRINTS' columns */
enum { FP_GROUP, FP_BASE, FP_HEAD };

/* the one column of ST_MAIL_BISECT_REGRESSION and ST_MAIL_REGRESSION_EXISTS */
enum { ONLY_COL };

/* column c of row i: NULL for SQL NULL */
static const char *str(const PGresult *r, int i, int c)
{
	return PQgetisnull(r, i, c) ? NULL : PQgetvalue(r, i, c);
}

/* a bigint or integer column: 0 for SQL NULL */
static long long int8(const PGresult *r, int i, int c)
{
	return PQgetisnull(r, i, c) ? 0 : strtoll(PQgetvalue(r, i, c), NULL, 10);
}

/* a float8 or numeric column: NAN for SQL NULL */
static double float8(const PGresult *r, int i, int c)
{
	return PQgetisnull(r, i, c) ? NAN : strtod(PQgetvalue(r, i, c), NULL);
}

/* Runs st with one int8 parameter. */
static PGresult *exec_id(struct db_conn *c, enum mail_stmt st, long long id, struct err *e)
{
	return db_query_id(c, &stmts[st], id, e);
}

/* ---- the regression ------------------------------------------------- */

int db_mail_regression(struct db_conn *c, long long regression_id, struct db_mail_regression *out,
		       struct err *e)
{
	PGresult *r = exec_id(c, ST_MAIL_REGRESSION, regression_id, e);

	memset(out, 0, sizeof(*out));
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return 0;
	}
	out->res = db_res_of(r);
	out->kind = PQgetvalue(r, 0, REGR_KIND);
	out->change_pct = float8(r, 0, REGR_CHANGE_PCT);
	out->metric = str(r, 0, REGR_METRIC);
	out->testcase = str(r, 0, REGR_TESTCASE);
	out->params = str(r, 0, REGR_PARAMS);
	out->kconfig = str(r, 0, REGR_KCONFIG);
	out->compiler = str(r, 0, REGR_COMPILER);
	out->tbox_group = str(r, 0, REGR_TBOX_GROUP);
	out->mode = str(r, 0, REGR_MODE);
	out->good_sha = str(r, 0, REGR_GOOD_SHA);
	out->good_subject = str(r, 0, REGR_GOOD_SUBJECT);
	out->bad_sha = str(r, 0, REGR_BAD_SHA);
	out->bad_subject = str(r, 0, REGR_BAD_SUBJECT);
	out->bad_author = str(r, 0, REGR_BAD_AUTHOR);
	out->tree = PQgetvalue(r, 0, REGR_TREE);
	out->branch = str(r, 0, REGR_BRANCH);
	out->machine_arch = str(r, 0, REGR_MACHINE_ARCH);
	out->nr_cpus = (long)int8(r, 0, REGR_NR_CPUS);
	out->memory_mb = int8(r, 0, REGR_MEMORY_MB);
	out->cpu_model = str(r, 0, REGR_CPU_MODEL);
	out->setup_id = int8(r, 0, REGR_SETUP_ID);
	out->good_commit_id = int8(r, 0, REGR_GOOD_COMMIT_ID);
	out->bad_commit_id = int8(r, 0, REGR_BAD_COMMIT_ID);
	out->metric_id = int8(r, 0, REGR_METRIC_ID);
	out->bisect_id = int8(r, 0, REGR_BISECT_ID);
	out->bad_parent_sha = str(r, 0, REGR_BAD_PARENT_SHA);
	out->hl_pct = float8(r, 0, REGR_HL_PCT);
	out->higher_is_better = PQgetisnull(r, 0, REGR_HIGHER_IS_BETTER) ?
					-1 :
					PQgetvalue(r, 0, REGR_HIGHER_IS_BETTER)[0] == 't';
	out->ci_lo_pct = float8(r, 0, REGR_CI_LO_PCT);
	out->ci_hi_pct = float8(r, 0, REGR_CI_HI_PCT);
	out->shift = float8(r, 0, REGR_SHIFT);
	out->noise_sigma = float8(r, 0, REGR_NOISE_SIGMA);
	out->commits_after = int8(r, 0, REGR_COMMITS_AFTER);
	out->p_value = float8(r, 0, REGR_P_VALUE);
	out->mean_before = float8(r, 0, REGR_MEAN_BEFORE);
	out->mean_after = float8(r, 0, REGR_MEAN_AFTER);
	out->noise_cycle = int8(r, 0, REGR_NOISE_CYCLE);
	return 1;
}

void db_mail_regression_free(struct db_mail_regression *r)
{
	PQclear(db_pgres(r->res));
	memset(r, 0, sizeof(*r));
}

long long db_mail_bisect_regression(struct db_conn *c, long long bisect_id, struct err *e)
{
	PGresult *r = exec_id(c, ST_MAIL_BISECT_REGRESSION, bisect_id, e);
	long long id;

	if (!r)
		return -1;
	id = PQntuples(r) ? int8(r, 0, ONLY_COL) : 0;
	PQclear(r);
	return id;
}

int db_mail_regression_exists(struct db_conn *c, long long regression_id, long long *bisect_id,
			      struct err *e)
{
	PGresult *r = exec_id(c, ST_MAIL_REGRESSION_EXISTS, regression_id, e);
	int found;

	if (!r)
		return -1;
	found = PQntuples(r) > 0;
	*bisect_id = found ? int8(r, 0, ONLY_COL) : 0;
	PQclear(r);
	return found;
}

/* ---- the bisect ----------------------------------------------------- */

int db_mail_bisect(struct db_conn *c, long long bisect_id, struct db_mail_bisect *out,
		   struct err *e)
{
	PGresult *r = exec_id(c, ST_MAIL_BISECT, bisect_id, e);

	memset(out, 0, sizeof(*out));
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return 0;
	}
	out->res = db_res_of(r);
	out->culprit_id = int8(r, 0, BISECT_CULPRIT_ID);
	out->culprit_sha = PQgetvalue(r, 0, BISECT_CULPRIT_SHA);
	out->culprit_subject = str(r, 0, BISECT_CULPRIT_SUBJECT);
	out->culprit_author = str(r, 0, BISECT_CULPRIT_AUTHOR);
	if (!PQgetisnull(r, 0, BISECT_PARENT_ID)) {
		out->parent_id = int8(r, 0, BISECT_PARENT_ID);
		out->parent_sha = PQgetvalue(r, 0, BISECT_PARENT_SHA);
		out->parent_subject = str(r, 0, BISECT_PARENT_SUBJECT);
	}
	return 1;
}

void db_mail_bisect_free(struct db_mail_bisect *b)
{
	PQclear(db_pgres(b->res));
	memset(b, 0, sizeof(*b));
}

int db_mail_same_image(struct db_conn *c, long long bisect_id, long long commit_id, long long *id,
		       char sha[41], struct err *e)
{
	struct db_param p[2] = { db_int8(bisect_id), db_int8(commit_id) };
	PGresult *r = db_query(c, &stmts[ST_MAIL_SAME_IMAGE], 2, p, 0, e);
	int got;

	if (!r)
		return -1;
	got = PQntuples(r) > 0;
	if (got) {
		*id = strtoll(PQgetvalue(r, 0, SAME_IMAGE_ID), NULL, 10);
		snprintf(sha, 41, "%s", PQgetvalue(r, 0, SAME_IMAGE_SHA));
	}
	PQclear(r);
	return got;
}

int db_mail_bisect_steps(struct db_conn *c, long long bisect_id, struct db_mail_steps *out,
			 struct err *e)
{
	PGresult *r = exec_id(c, ST_MAIL_BISECT_STEPS, bisect_id, e);
	int n;

	memset(out, 0, sizeof(*out));
	if (!r)
		return -1;
	n = PQntuples(r);
	out->res = db_res_of(r);
	out->v = xcalloc(n ? (size_t)n : 1, sizeof(*out->v));
	out->n = (size_t)n;
	for (int i = 0; i < n; i++) {
		out->v[i].sha = PQgetvalue(r, i, STEP_SHA);
		out->v[i].subject = str(r, i, STEP_SUBJECT);
		out->v[i].verdict = PQgetvalue(r, i, STEP_VERDICT);
		out->v[i].mean = float8(r, i, STEP_MEAN);
		out->v[i].nr_samples = (int)strtol(PQgetvalue(r, i, STEP_NR_SAMPLES), NULL, 10);
	}
	return 0;
}

void db_mail_steps_free(struct db_mail_steps *s)
{
	PQclear(db_pgres(s->res));
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* ---- the comparison table ------------------------------------------- */

static int mail_compare(struct db_conn *c, enum mail_stmt st, long long setup_id, long long base_id,
			long long head_id, struct db_mail_compare *out, struct err *e)
{
	struct db_param p[3] = { db_int8(setup_id), db_int8(base_id), db_int8(head_id) };
	PGresult *r;
	size_t n, nvals = 0;
	double *pool;

	memset(out, 0, sizeof(*out));
	r = db_query(c, &stmts[st], 3, p, 0, e);
	if (!r)
		return -1;
	n = (size_t)PQntuples(r);
	for (size_t i = 0; i < n; i++)
		nvals += pg_float8_array_len(PQgetvalue(r, (int)i, CMP_BASE)) +
			 pg_float8_array_len(PQgetvalue(r, (int)i, CMP_HEAD));
	out->res = db_res_of(r);
	out->pool = pool = xmalloc((nvals ? nvals : 1) * sizeof(double));
	out->v = xcalloc(n ? n : 1, sizeof(*out->v));
	out->n = n;
	for (size_t i = 0; i < n; i++) {
		struct db_mail_metric *m = &out->v[i];

		m->metric_id = int8(r, (int)i, CMP_METRIC_ID);
		m->name = PQgetvalue(r, (int)i, CMP_NAME);
		/* sorted: aggregated in no particular order */
		m->base = pool;
		m->nr_base = pg_float8_array_sorted(PQgetvalue(r, (int)i, CMP_BASE), pool);
		pool += m->nr_base;
		m->head = pool;
		m->nr_head = pg_float8_array_sorted(PQgetvalue(r, (int)i, CMP_HEAD), pool);
		pool += m->nr_head;
	}
	return 0;
}

int db_mail_compare(struct db_conn *c, long long setup_id, long long base_id, long long head_id,
		    struct db_mail_compare *out, struct err *e)
{
	return mail_compare(c, ST_MAIL_COMPARE, setup_id, base_id, head_id, out, e);
}

int db_mail_profile_compare(struct db_conn *c, long long setup_id, long long base_id,
			    long long head_id, struct db_mail_compare *out, struct err *e)
{
	return mail_compare(c, ST_MAIL_PROFILE_COMPARE, setup_id, base_id, head_id, out, e);
}

void db_mail_compare_free(struct db_mail_compare *t)
{
	PQclear(db_pgres(t->res));
	free(t->v);
	free(t->pool);
	memset(t, 0, sizeof(*t));
}

/* ---- the test machine ----------------------------------------------- */

int db_mail_machine(struct db_conn *c, long long setup_id, long long commit_id,
		    struct db_mail_machine *out, struct err *e)
{
	struct db_param p[2] = { db_int8(setup_id), db_int8(commit_id) };
	PGresult *r;

	memset(out, 0, sizeof(*out));
	r = db_query(c, &stmts[ST_MAIL_MACHINE], 2, p, 0, e);
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return 0;
	}
	out->res = db_res_of(r);
	out->arch = str(r, 0, MACHINE_ARCH);
	out->has_nr_cpus = !PQgetisnull(r, 0, MACHINE_NR_CPUS);
	out->nr_cpus = int8(r, 0, MACHINE_NR_CPUS);
	out->has_memory_mb = !PQgetisnull(r, 0, MACHINE_MEMORY_MB);
	out->memory_mb = int8(r, 0, MACHINE_MEMORY_MB);
	out->cpu_model = str(r, 0, MACHINE_CPU_MODEL);
	out->accel = str(r, 0, MACHINE_ACCEL);
	out->guest_arch = str(r, 0, MACHINE_GUEST_ARCH);
	out->has_guest_nr_cpus = !PQgetisnull(r, 0, MACHINE_GUEST_NR_CPUS);
	out->guest_nr_cpus = int8(r, 0, MACHINE_GUEST_NR_CPUS);
	out->guest_memory_mb = int8(r, 0, MACHINE_GUEST_MEMORY_MB);
	out->guest_icount = str(r, 0, MACHINE_GUEST_ICOUNT);
	out->cpus = int8(r, 0, MACHINE_CPUS);
	out->mode = PQgetvalue(r, 0, MACHINE_MODE);
	out->guest_cpu_model = str(r, 0, MACHINE_GUEST_CPU_MODEL);
	out->guest_pinned = str(r, 0, MACHINE_GUEST_PINNED);
	out->guest_hugepages = str(r, 0, MACHINE_GUEST_HUGEPAGES);
	out->guest_numa_nodes = int8(r, 0, MACHINE_GUEST_NUMA_NODES);
	out->tbox_group = str(r, 0, MACHINE_TBOX_GROUP);
	return 1;
}

void db_mail_machine_report(const struct db_mail_machine *m, struct report_input *in)
{
	if (m->arch)
		in->machine_arch = m->arch;
	if (m->has_nr_cpus)
		in->nr_cpus = (long)m->nr_cpus;
	if (m->has_memory_mb)
		in->memory_mb = m->memory_mb;
	if (m->cpu_model)
		in->cpu_model = m->cpu_model;
	in->accel = m->accel;
	in->guest_arch = m->guest_arch;
	in->guest_cpus = (long)(m->has_guest_nr_cpus ? m->guest_nr_cpus : m->cpus);
	in->guest_memory_mb = m->guest_memory_mb;
	in->icount = m->guest_icount ? !strcmp(m->guest_icount, "true") :
				       !strcmp(m->mode, "icount");
	in->guest_cpu_model = m->guest_cpu_model;
	in->guest_pinned = m->guest_pinned && !strcmp(m->guest_pinned, "true");
	in->guest_hugepages = m->guest_hugepages;
	in->guest_numa_nodes = (long)m->guest_numa_nodes;
}

void db_mail_machine_free(struct db_mail_machine *m)
{
	PQclear(db_pgres(m->res));
	memset(m, 0, sizeof(*m));
}

/* ---- the culprit's files -------------------------------------------- */

int db_mail_diffstat(struct db_conn *c, long long commit_id, struct db_mail_diffstat *out,
		     struct err *e)
{
	PGresult *r = exec_id(c, ST_MAIL_DIFFSTAT, commit_id, e);
	int found;

	memset(out, 0, sizeof(*out));
	if (!r)
		return -1;
	found = PQntuples(r) == 1;
	if (found) {
		out->files_changed = int8(r, 0, DIFFSTAT_FILES);
		out->insertions = int8(r, 0, DIFFSTAT_INSERTIONS);
		out->deletions = int8(r, 0, DIFFSTAT_DELETIONS);
	}
	PQclear(r);
	return found;
}

int db_mail_commit_files(struct db_conn *c, long long commit_id, struct db_mail_files *out,
			 struct err *e)
{
	PGresult *r = exec_id(c, ST_MAIL_COMMIT_FILES, commit_id, e);
	int n;

	memset(out, 0, sizeof(*out));
	if (!r)
		return -1;
	n = PQntuples(r);
	out->res = db_res_of(r);
	out->v = xcalloc(n ? (size_t)n : 1, sizeof(*out->v));
	out->n = (size_t)n;
	for (int i = 0; i < n; i++) {
		out->v[i].path = PQgetvalue(r, i, FILE_PATH);
		out->v[i].insertions = strtol(PQgetvalue(r, i, FILE_INSERTIONS), NULL, 10);
		out->v[i].deletions = strtol(PQgetvalue(r, i, FILE_DELETIONS), NULL, 10);
	}
	return 0;
}

void db_mail_files_free(struct db_mail_files *f)
{
	PQclear(db_pgres(f->res));
	free(f->v);
	memset(f, 0, sizeof(*f));
}

/* ---- an A/B request's fingerprints ------------------------------------- */

long db_mail_request_fingerprints(struct db_conn *c, long long request_id,
				  struct db_mail_group_fp **out, struct err *e)
{
	PGresult *r = exec_id(c, ST_MAIL_REQUEST_FINGERPRINTS, request_id, e);
	long n;

	*out = NULL;
	if (!r)
		return -1;
	n = PQntuples(r);
	if (n)
		*out = xcalloc((size_t)n, sizeof(**out));
	for (long i = 0; i < n; i++) {
		struct db_mail_group_fp *f = &(*out)[i];

		f->group = (int)int8(r, (int)i, FP_GROUP);
		f->base = json_loads(PQgetvalue(r, (int)i, FP_BASE), 0, NULL);
		f->head = json_loads(PQgetvalue(r, (int)i, FP_HEAD), 0, NULL);
		if (!f->base)
			f->base = json_array();
		if (!f->head)
			f->head = json_array();
	}
	PQclear(r);
	return n;
}

void db_mail_group_fps_free(struct db_mail_group_fp *f, long n)
{
	for (long i = 0; i < n; i++) {
		json_decref(f[i].base);
		json_decref(f[i].head);
	}
	free(f);
}

/* regression_id goes as text (decimal, or NULL for all), which $1::bigint parses */
int db_outbox_json(struct db_conn *c, const char *regression_id, const char *limit, char **text,
		   struct err *e)
{
	struct db_param p[2] = { db_text(regression_id), db_text(limit) };

	return db_query_json(c, &stmts[ST_OUTBOX_JSON], 2, p, text, e);
}

int db_regression_report_json(struct db_conn *c, long long id, char **text, struct err *e)
{
	struct db_param p[1] = { db_int8(id) };

	if (!db_query_json(c, &stmts[ST_REGRESSION_REPORT_JSON], 1, p, text, e))
		return 1;
	return e->id == ERR_NOT_FOUND ? 0 : -1;
}

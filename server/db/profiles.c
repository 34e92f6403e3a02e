/*
 * Run profiles and the runs of profile diffs (profiles.h; ingest.c,
 * api/profiles.c), the bisect profile round's jobs and monitors, and the
 * statements they are made with (sql/0018).
 */
#include "server/db/profiles.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "server/db/stmts.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* this file's statements, prepared with the others (db_stmt_table, db_int.h) */
enum profile_stmt {
	ST_PROFILE_BISECT_ENDS,
	ST_BISECT_PROFILE_JOBS,
	ST_BISECT_PROFILE_JOB_INSERT,
	ST_BISECT_MONITORS,
	ST_BISECT_SET_MONITORS,
	ST_PROFILE_INSERT,
	ST_PROFILE_OF_RUN,
	ST_PROFILE_REQUEST_ENDS,
	ST_PROFILE_RUNS_BISECT,
	ST_PROFILE_RUNS_COMMITS,
	ST_PROFILE_RUNS_REQUEST,
	NR_PROFILE_STMTS
};

/*
 * the columns of every ST_PROFILE_RUNS_*: head side (bool), the run's
 * commit, its folded text (NULL when TEXT(n)'s parameter is true: the
 * runs without their stacks, which a stored value of TOAST never reads
 * then), its setup, the profile's event, and the run's work: the mean of
 * the first of the metrics named in WORK's parameter (space-separated,
 * lib/profile.h's PROFILE_WORK_METRICS) it has, that metric's name, and
 * its setup's runtime param (text; NULLs when none), then runs.id
 */
#define WORK_COLS ", p.event, w.mean, w.name, s.params->>'runtime', r.id "
#define TEXT(n) "CASE WHEN $" n "::boolean THEN NULL ELSE p.folded END"
#define WORK(n)                                                                                     \
	"LEFT JOIN LATERAL (SELECT m.name, (SELECT avg(x) FROM unnest(rv.vals) x) AS mean "         \
	"FROM run_points(r.id, r.received_at) rv JOIN metrics m ON m.id = rv.metric_id WHERE true " \
	"AND m.name = ANY (string_to_array($" n                                                     \
	"::text, ' ')) ORDER BY m.name LIMIT 1) w ON true "
static const struct db_stmt_def stmts[NR_PROFILE_STMTS] = {
	/* $1 bisect: its state, first bad commit and the parent it was verified against */
	[ST_PROFILE_BISECT_ENDS] = { "profile_bisect_ends",
				     "SELECT b.state, fb.sha, b.verification->>'parent' FROM bisects b "
				     "LEFT JOIN commits fb ON fb.id = b.first_bad_id WHERE b.id = $1::bigint" },
	/*
	 * $1 bisect $2 parent $3 first bad (commit ids): its profile round's
	 * jobs at those commits, and how many are still out (queued or leased)
	 */
	[ST_BISECT_PROFILE_JOBS] = { "bisect_profile_jobs",
				     "SELECT count(*), count(*) FILTER (WHERE state IN ('queued', 'leased')) "
				     "FROM jobs WHERE bisect_id = $1::bigint AND monitors <> '' "
				     "AND commit_id IN ($2::bigint, $3::bigint)" },
	/*
	 * $1 bisect $2 commit $3 capability $4 repeat $5 priority $6 max_attempts $7 round:
	 * a job of its profile round, ST_BISECT_JOB_INSERT's with the bisect's monitors
	 */
	[ST_BISECT_PROFILE_JOB_INSERT] = { "bisect_profile_job_insert",
					   "INSERT INTO jobs (tree_id, commit_id, testcase_id, params, kconfig, "
					   "compiler, arch, tbox_group, need_capability, repeat, priority, "
					   "max_attempts, bisect_id, bisect_round, monitors) "
					   "SELECT b.tree_id, $2::bigint, b.testcase_id, b.params, b.kconfig, "
					   "b.compiler, b.arch, b.tbox_group, $3, $4::integer, $5::integer, "
					   "$6::integer, b.id, $7::integer, b.monitors "
					   "FROM bisects b WHERE b.id = $1::bigint AND b.monitors <> '' RETURNING id" },
	/* $1 bisect: the monitors of its profile round; the phase is 'profile' from then */
	[ST_BISECT_MONITORS] = { "bisect_monitors",
				 "SELECT monitors FROM bisects WHERE id = $1::bigint" },
	[ST_BISECT_SET_MONITORS] = { "bisect_set_monitors",
				     "UPDATE bisects SET monitors = $2 WHERE id = $1::bigint" },
	/* $1 runs.id $2 event $3 samples $4 folded */
	[ST_PROFILE_INSERT] = { "profile_insert",
				"INSERT INTO run_profiles (run_id, event, samples, folded) "
				"VALUES ($1::bigint, $2, $3::bigint, $4)" },
	/* $1 run_id (uuid): the run (runs.id) and its profile, NULLs when it has none */
	[ST_PROFILE_OF_RUN] = { "profile_of_run",
				"SELECT r.id, p.event, p.samples, p.folded FROM runs r "
				"LEFT JOIN run_profiles p ON p.run_id = r.id WHERE r.run_id = $1::uuid" },
	/* $1 request: its base and head commits (head NULL: patches not yet applied) */
	[ST_PROFILE_REQUEST_ENDS] = { "profile_request_ends",
				      "SELECT base_sha, head_sha FROM requests WHERE id = $1::bigint" },
	/*
	 * $1 bisect $2 work metrics $3 without texts: the profiled runs of its profile round
	 * (jobs with monitors, server/bisect/bisect_step.c) at its first bad commit
	 * (head) and at the parent the verification compared it with (base)
	 */
	[ST_PROFILE_RUNS_BISECT] = { "profile_runs_bisect",
				     "SELECT r.commit_id = b.first_bad_id, c.sha, " TEXT(
					     "3") ", r.setup_id" WORK_COLS "FROM bisects b "
						  "JOIN jobs j ON j.bisect_id = b.id AND j.monitors <> '' "
						  "JOIN runs r ON r.job_id = j.id AND r.status = 'ok' "
						  "JOIN run_profiles p ON p.run_id = r.id JOIN commits c ON c.id = r.commit_id "
						  "JOIN setups s ON s.id = r.setup_id " WORK(
							  "2") "WHERE b.id = $1::bigint AND (r.commit_id = b.first_bad_id "
							       "OR c.sha = b.verification->>'parent') ORDER BY r.id" },
	/*
	 * $1 base commit id, $2 head commit id, $3 testcase, $4..$9 the setup
	 * filters of ST_COMPARE (db/series.c) and $12 its second params_key,
	 * $10 work metrics, $11 without texts: the
	 * profiled runs (status ok) of both commits
	 */
	[ST_PROFILE_RUNS_COMMITS] = { "profile_runs_commits",
				      "SELECT r.commit_id = $2::bigint, c.sha, " TEXT(
					      "11") ", r.setup_id" WORK_COLS "FROM runs r "
						    "JOIN run_profiles p ON p.run_id = r.id JOIN commits c ON c.id = r.commit_id "
						    "JOIN setups s ON s.id = r.setup_id JOIN testcases t ON t.id = s.testcase_id " WORK(
							    "10") "WHERE r.commit_id IN ($1::bigint, $2::bigint) AND r.status = 'ok' "
								  "AND ($3::text IS NULL OR t.name = $3) "
								  "AND ($4::text IS NULL OR s.tbox_group = $4) "
								  "AND ($5::text IS NULL OR s.kconfig = $5) "
								  "AND ($6::text IS NULL OR s.compiler = $6) "
								  "AND ($7::text IS NULL OR s.params_key IN ($7, $12::text)) "
								  "AND ($8::text IS NULL OR s.mode = $8) "
								  "AND ($9::text IS NULL OR s.monitors = $9) ORDER BY r.id" },
	/*
	 * $1 request $2 target (NULL = any) $3 testcase (NULL = any) $4 work
	 * metrics $5 without texts: the profiled runs of its base and head jobs; a job's target is
	 * its group's in the request's spec (ab_group indexes spec.groups)
	 */
	[ST_PROFILE_RUNS_REQUEST] = { "profile_runs_request",
				      "SELECT j.ab_side = 'head', c.sha, " TEXT(
					      "5") ", r.setup_id" WORK_COLS "FROM jobs j "
						   "JOIN requests rq ON rq.id = j.request_id "
						   "JOIN runs r ON r.job_id = j.id AND r.status = 'ok' "
						   "JOIN run_profiles p ON p.run_id = r.id JOIN commits c ON c.id = r.commit_id "
						   "JOIN setups s ON s.id = r.setup_id " WORK(
							   "4") "JOIN testcases t ON t.id = j.testcase_id WHERE j.request_id = $1::bigint "
								"AND ($2::text IS NULL OR "
								"rq.spec->'groups'->(j.ab_group::integer)->>'target' = $2) "
								"AND ($3::text IS NULL OR t.name = $3) ORDER BY r.id" },
};

const struct db_stmt_table db_stmts_profiles = DB_STMT_TABLE(stmts);

/* ST_PROFILE_OF_RUN's columns */
enum { OF_RUN_ID, OF_RUN_EVENT, OF_RUN_SAMPLES, OF_RUN_FOLDED };

/* every ST_PROFILE_RUNS_*'s columns (WORK_COLS above) */
enum {
	RUNS_HEAD,
	RUNS_COMMIT,
	RUNS_FOLDED,
	RUNS_SETUP_ID,
	RUNS_EVENT,
	RUNS_WORK_MEAN,
	RUNS_WORK_METRIC,
	RUNS_RUNTIME,
	RUNS_ID
};

/* ST_PROFILE_BISECT_ENDS' columns */
enum { BISECT_ENDS_STATE, BISECT_ENDS_FIRST_BAD, BISECT_ENDS_PARENT };

/* ST_PROFILE_REQUEST_ENDS' columns */
enum { REQUEST_ENDS_BASE, REQUEST_ENDS_HEAD };

/* ST_BISECT_PROFILE_JOBS' columns */
enum { PROFILE_JOBS_TOTAL, PROFILE_JOBS_OUT };

/* ST_BISECT_MONITORS' one column */
enum { MONITORS_TEXT };

int db_profile_insert(struct db_conn *c, long long run_id, const char *event, long long samples,
		      const char *folded, struct err *e)
{
	struct db_param p[4] = { db_int8(run_id), db_text(event), db_int8(samples),
				 db_text(folded) };

	return db_query_do(c, &stmts[ST_PROFILE_INSERT], 4, p, e);
}

int db_run_profile(struct db_conn *c, const char *uuid, struct db_run_profile *out, struct err *e)
{
	struct db_param p[1] = { db_text(uuid) };
	PGresult *r;

	memset(out, 0, sizeof(*out));
	r = db_query(c, &stmts[ST_PROFILE_OF_RUN], 1, p, 0, e);
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return 0;
	}
	out->res_ = db_res_of(r);
	if (PQgetisnull(r, 0, OF_RUN_EVENT))
		return 1;
	out->event = PQgetvalue(r, 0, OF_RUN_EVENT);
	out->samples = strtoll(PQgetvalue(r, 0, OF_RUN_SAMPLES), NULL, 10);
	out->folded = PQgetvalue(r, 0, OF_RUN_FOLDED);
	out->folded_len = (size_t)PQgetlength(r, 0, OF_RUN_FOLDED);
	return 1;
}

void db_run_profile_free(struct db_run_profile *p)
{
	PQclear(db_pgres(p->res_));
	memset(p, 0, sizeof(*p));
}

static int fill_runs(PGresult *r, struct db_profile_runs *out)
{
	size_t n = (size_t)PQntuples(r);

	out->res_ = db_res_of(r);
	out->nr = n;
	out->rows = xcalloc(n ? n : 1, sizeof(*out->rows));
	for (size_t i = 0; i < n; i++) {
		int row = (int)i;

		out->rows[i].head = PQgetvalue(r, row, RUNS_HEAD)[0] == 't';
		out->rows[i].commit = PQgetvalue(r, row, RUNS_COMMIT);
		out->rows[i].folded = PQgetvalue(r, row, RUNS_FOLDED);
		out->rows[i].folded_len = (size_t)PQgetlength(r, row, RUNS_FOLDED);
		out->rows[i].setup_id = strtoll(PQgetvalue(r, row, RUNS_SETUP_ID), NULL, 10);
		out->rows[i].id = strtoll(PQgetvalue(r, row, RUNS_ID), NULL, 10);
		out->rows[i].event = PQgetvalue(r, row, RUNS_EVENT);
		out->rows[i].work = NAN;
		if (!PQgetisnull(r, row, RUNS_WORK_MEAN)) {
			const char *rt = PQgetvalue(r, row, RUNS_RUNTIME);
			char *end = NULL;
			double runtime = PQgetisnull(r, row, RUNS_RUNTIME) ? 1 : strtod(rt, &end);

			/* a runtime that is no positive number: the cases' default */
			if (end && (!*rt || *end || !(runtime > 0)))
				runtime = 1;
			out->rows[i].work = strtod(PQgetvalue(r, row, RUNS_WORK_MEAN), NULL) *
					    runtime;
			out->rows[i].work_metric = PQgetvalue(r, row, RUNS_WORK_METRIC);
		}
	}
	return 0;
}

/*
 * The commit ids come as text (the caller's, from ST_COMPARE's reply) and
 * are bound so: $1::bigint and $2::bigint parse them as before.
 */
int db_profile_runs_commits(struct db_conn *c, const char *base_id, const char *head_id,
			    const struct db_setup_filter *f, const char *work_metrics, int no_text,
			    struct db_profile_runs *out, struct err *e)
{
	struct db_param p[12] = { db_text(base_id),
				  db_text(head_id),
				  db_text(f->testcase),
				  db_text(f->tbox_group),
				  db_text(f->kconfig),
				  db_text(f->compiler),
				  db_text(f->params_key),
				  db_text(f->mode),
				  db_text(f->monitors),
				  db_text(work_metrics),
				  db_text(no_text ? "t" : "f"),
				  db_text(f->params_given) };
	PGresult *r;

	memset(out, 0, sizeof(*out));
	r = db_query(c, &stmts[ST_PROFILE_RUNS_COMMITS], 12, p, 0, e);
	return r ? fill_runs(r, out) : -1;
}

int db_profile_runs_bisect(struct db_conn *c, long long id, const char *work_metrics, int no_text,
			   struct db_profile_runs *out, struct err *e)
{
	struct db_param p[3] = { db_int8(id), db_text(work_metrics), db_text(no_text ? "t" : "f") };
	PGresult *r;

	memset(out, 0, sizeof(*out));
	r = db_query(c, &stmts[ST_PROFILE_RUNS_BISECT], 3, p, 0, e);
	return r ? fill_runs(r, out) : -1;
}

int db_profile_runs_request(struct db_conn *c, long long id, const char *target,
			    const char *testcase, const char *work_metrics, int no_text,
			    struct db_profile_runs *out, struct err *e)
{
	struct db_param p[5] = { db_int8(id), db_text(target), db_text(testcase),
				 db_text(work_metrics), db_text(no_text ? "t" : "f") };
	PGresult *r;

	memset(out, 0, sizeof(*out));
	r = db_query(c, &stmts[ST_PROFILE_RUNS_REQUEST], 5, p, 0, e);
	return r ? fill_runs(r, out) : -1;
}

void db_profile_runs_free(struct db_profile_runs *r)
{
	free(r->rows);
	PQclear(db_pgres(r->res_));
	memset(r, 0, sizeof(*r));
}

/* column col of row 0 into a 41-byte sha buffer; "" for NULL */
static void sha_of(PGresult *r, int col, char out[41])
{
	snprintf(out, 41, "%s", PQgetisnull(r, 0, col) ? "" : PQgetvalue(r, 0, col));
}

int db_profile_bisect_ends(struct db_conn *c, long long id, char *state, size_t size,
			   char first_bad[41], char parent[41], struct err *e)
{
	PGresult *r = db_query_id(c, &stmts[ST_PROFILE_BISECT_ENDS], id, e);

	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return 0;
	}
	snprintf(state, size, "%s", PQgetvalue(r, 0, BISECT_ENDS_STATE));
	sha_of(r, BISECT_ENDS_FIRST_BAD, first_bad);
	sha_of(r, BISECT_ENDS_PARENT, parent);
	PQclear(r);
	return 1;
}

int db_profile_request_ends(struct db_conn *c, long long id, char base[41], char head[41],
			    struct err *e)
{
	PGresult *r = db_query_id(c, &stmts[ST_PROFILE_REQUEST_ENDS], id, e);

	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return 0;
	}
	sha_of(r, REQUEST_ENDS_BASE, base);
	sha_of(r, REQUEST_ENDS_HEAD, head);
	PQclear(r);
	return 1;
}

int db_bisect_set_monitors(struct db_conn *c, long long id, const char *monitors, struct err *e)
{
	struct db_param p[2] = { db_int8(id), db_text(monitors) };

	return db_query_do(c, &stmts[ST_BISECT_SET_MONITORS], 2, p, e);
}

int db_bisect_monitors(struct db_conn *c, long long id, char out[32], struct err *e)
{
	PGresult *r = db_query_id(c, &stmts[ST_BISECT_MONITORS], id, e);

	if (!r)
		return -1;
	snprintf(out, 32, "%s", PQntuples(r) == 1 ? PQgetvalue(r, 0, MONITORS_TEXT) : "");
	PQclear(r);
	return 0;
}

int db_bisect_profile_jobs(struct db_conn *c, long long id, long long a, long long b,
			   long long *total, long long *out, struct err *e)
{
	struct db_param p[3] = { db_int8(id), db_int8(a), db_int8(b) };
	PGresult *r = db_query(c, &stmts[ST_BISECT_PROFILE_JOBS], 3, p, 0, e);

	if (!r)
		return -1;
	*total = PQntuples(r) == 1 ? strtoll(PQgetvalue(r, 0, PROFILE_JOBS_TOTAL), NULL, 10) : 0;
	*out = PQntuples(r) == 1 ? strtoll(PQgetvalue(r, 0, PROFILE_JOBS_OUT), NULL, 10) : 0;
	PQclear(r);
	return 0;
}

/*
 * repeat, priority, max_attempts and round go as text: the SQL casts them
 * to integer ($n::integer), where a binary int8 would be refused.
 */
int db_bisect_profile_job_insert(struct db_conn *c, long long id, long long commit_id,
				 const char *cap, int repeat, long priority, long max_attempts,
				 int round, struct err *e)
{
	char rep[24], pr[24], ma[24], rb[24];
	struct db_param p[7] = { db_int8(id), db_int8(commit_id), db_text(cap), db_text(rep),
				 db_text(pr), db_text(ma),	  db_text(rb) };

	snprintf(rep, sizeof(rep), "%d", repeat);
	snprintf(pr, sizeof(pr), "%ld", priority);
	snprintf(ma, sizeof(ma), "%ld", max_attempts);
	snprintf(rb, sizeof(rb), "%d", round);
	return db_query_do(c, &stmts[ST_BISECT_PROFILE_JOB_INSERT], 7, p, e);
}

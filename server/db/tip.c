/*
 * Reports at the tip (regressions.h, for detect.c): the plan's job that
 * ran a change's first bad commit, the records found there, the extra
 * jobs that run the commit before the tip and the tip again, and the
 * commits those ran; the statements they are made with.
 */
#include "server/db/regressions.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "server/db/stmts.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>

/* this file's statements, prepared with the others (db_stmt_table, db_int.h) */
enum tip_stmt { ST_TIP_JOB, ST_TIP_RECORD, ST_TIP_REQUEST, ST_TIP_COMMITS, NR_TIP_STMTS };

static const struct db_stmt_def stmts[NR_TIP_STMTS] = {
	/* $1 setup $2 commit: the tracking job (one a push queued) that ran the commit in the setup */
	[ST_TIP_JOB] = { "tip_job",
			 "SELECT j.id, j.track_branch FROM runs r JOIN jobs j ON j.id = r.job_id "
			 "WHERE r.setup_id = $1::bigint AND r.commit_id = $2::bigint AND j.plan_id IS NOT NULL "
			 "AND j.track_branch IS NOT NULL ORDER BY j.id LIMIT 1" },
	/* $1 setup $2 commit: per metric, the oldest record whose first bad commit it is */
	[ST_TIP_RECORD] = { "tip_record",
			    "SELECT DISTINCT ON (metric_id) metric_id, id FROM regressions "
			    "WHERE setup_id = $1::bigint AND bad_commit_id = $2::bigint ORDER BY metric_id, id" },
	/*
	 * $1 that job $2 the commit before the tip $3 the tip $4 runs: one more job of each,
	 * the same setup and priority, track_key KEY + ' tip' so the unique index of
	 * sql/0014 makes each once; no track_branch: a push never supersedes them
	 */
	[ST_TIP_REQUEST] = { "tip_request",
			     "INSERT INTO jobs (tree_id, commit_id, testcase_id, params, kconfig, compiler, arch, "
			     "tbox_group, need_capability, repeat, priority, max_attempts, plan_id, track_key, "
			     "monitors) "
			     "SELECT j.tree_id, x.id, j.testcase_id, j.params, j.kconfig, j.compiler, j.arch, "
			     "j.tbox_group, j.need_capability, $4::integer, j.priority, j.max_attempts, j.plan_id, "
			     "j.track_key || ' tip', j.monitors FROM jobs j CROSS JOIN unnest(ARRAY[$2::bigint, $3::bigint]) "
			     "AS x(id) WHERE j.id = $1::bigint "
			     "ON CONFLICT (plan_id, commit_id, track_key) DO NOTHING RETURNING id" },
	/* $1 setup: the commits with runs of an extra tip job (track_key 'KEY tip'), by id */
	[ST_TIP_COMMITS] = { "tip_commits",
			     "SELECT DISTINCT r.commit_id FROM runs r JOIN jobs j ON j.id = r.job_id "
			     "WHERE r.setup_id = $1::bigint AND j.plan_id IS NOT NULL "
			     "AND right(j.track_key, 4) = ' tip' ORDER BY 1" },
};

const struct db_stmt_table db_stmts_tip = DB_STMT_TABLE(stmts);

static long long get_ll(PGresult *r, int row, int col)
{
	return strtoll(PQgetvalue(r, row, col), NULL, 10);
}

/* ST_TIP_JOB's columns */
enum { JOB_ID, JOB_BRANCH };

int db_tip_job(struct db_conn *c, long long setup_id, long long commit_id, long long *job_id,
	       char *branch, size_t size, struct err *e)
{
	struct db_param p[2] = { db_int8(setup_id), db_int8(commit_id) };
	PGresult *r = db_query(c, &stmts[ST_TIP_JOB], 2, p, 0, e);
	int found;

	if (!r)
		return -1;
	found = PQntuples(r) > 0;
	if (found) {
		*job_id = get_ll(r, 0, JOB_ID);
		snprintf(branch, size, "%s", PQgetvalue(r, 0, JOB_BRANCH));
	}
	PQclear(r);
	return found;
}

long db_tip_request(struct db_conn *c, long long job_id, long long prev, long long tip, long runs,
		    struct err *e)
{
	char nruns[24];
	/* the runs are an integer in the SQL ($4::integer): sent as text */
	struct db_param p[4] = { db_int8(job_id), db_int8(prev), db_int8(tip), db_text(nruns) };

	snprintf(nruns, sizeof(nruns), "%ld", runs);
	return (long)db_query_rows(c, &stmts[ST_TIP_REQUEST], 4, p, e);
}

/* ST_TIP_RECORD's columns */
enum { RECORD_METRIC, RECORD_ID };

int db_tip_records(struct db_conn *c, long long setup_id, long long commit_id, long long **metric,
		   long long **id, size_t *n, struct err *e)
{
	struct db_param p[2] = { db_int8(setup_id), db_int8(commit_id) };
	PGresult *r;

	*metric = *id = NULL;
	*n = 0;
	r = db_query(c, &stmts[ST_TIP_RECORD], 2, p, 0, e);
	if (!r)
		return -1;
	*n = (size_t)PQntuples(r);
	*metric = xcalloc(*n + 1, sizeof(**metric));
	*id = xcalloc(*n + 1, sizeof(**id));
	for (size_t i = 0; i < *n; i++) {
		(*metric)[i] = get_ll(r, (int)i, RECORD_METRIC);
		(*id)[i] = get_ll(r, (int)i, RECORD_ID);
	}
	PQclear(r);
	return 0;
}

/* ST_TIP_COMMITS's column */
enum { COMMITS_ID };

int db_tip_commits(struct db_conn *c, long long setup_id, long long **ids, size_t *n, struct err *e)
{
	PGresult *r;

	*ids = NULL;
	*n = 0;
	r = db_query_id(c, &stmts[ST_TIP_COMMITS], setup_id, e);
	if (!r)
		return -1;
	*n = (size_t)PQntuples(r);
	*ids = xcalloc(*n + 1, sizeof(**ids));
	for (size_t i = 0; i < *n; i++)
		(*ids)[i] = get_ll(r, (int)i, COMMITS_ID);
	PQclear(r);
	return 0;
}

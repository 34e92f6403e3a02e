/*
 * The alert-quality ledger's read (quality.h; api/quality.c), and the
 * statement it is made with.
 */
#include "server/db/quality.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "server/db/stmts.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* this file's statements, prepared with the others (db_stmt_table, db_int.h) */
enum quality_stmt { ST_QUALITY_ROWS, NR_QUALITY_STMTS };

/*
 * A record's plan: the plan of the first job (by id) that ran the
 * record's setup at its first bad commit, else at its last good commit;
 * NULL when no plan's job ran either (results from CI, a deleted plan).
 */
#define REG_PLAN(g)                                                           \
	"(SELECT p.name FROM runs r JOIN jobs j ON j.id = r.job_id "          \
	"JOIN plans p ON p.id = j.plan_id WHERE r.setup_id = " g ".setup_id " \
	"AND r.commit_id IN (" g ".bad_commit_id, " g ".good_commit_id) "     \
	"ORDER BY (r.commit_id = " g ".bad_commit_id) DESC, j.id LIMIT 1)"

static const struct db_stmt_def stmts[NR_QUALITY_STMTS] = {
	/*
	 * $1 since $2 until (unix seconds) $3 plan $4 testcase $5 metric
	 * $6 tbox_group (NULL = any): the records first detected in
	 * [since, until), counted per (plan, testcase, metric, tbox_group,
	 * state, week), week = whole 7-day steps from since; rows ordered so
	 * that one (plan, testcase, metric, tbox_group) is contiguous, no plan
	 * first, names in byte order
	 */
	[ST_QUALITY_ROWS] = { "quality_rows",
			      "SELECT x.plan, x.testcase, x.metric, x.tbox_group, x.state, x.week, "
			      "count(*) FROM (SELECT " REG_PLAN(
				      "g") " AS plan, t.name AS testcase, "
					   "m.name AS metric, s.tbox_group, g.state, "
					   "floor((extract(epoch FROM g.created_at) - $1::double precision) "
					   "/ 604800)::integer AS week "
					   "FROM regressions g JOIN setups s ON s.id = g.setup_id "
					   "JOIN testcases t ON t.id = s.testcase_id JOIN metrics m ON m.id = g.metric_id "
					   "WHERE g.created_at >= to_timestamp($1::double precision) "
					   "AND g.created_at < to_timestamp($2::double precision) "
					   "AND ($4::text IS NULL OR t.name = $4::text) "
					   "AND ($5::text IS NULL OR m.name = $5::text) "
					   "AND ($6::text IS NULL OR s.tbox_group = $6::text)) x "
					   "WHERE ($3::text IS NULL OR x.plan = $3::text) "
					   "GROUP BY 1, 2, 3, 4, 5, 6 "
					   "ORDER BY x.plan COLLATE \"C\" NULLS FIRST, x.testcase COLLATE \"C\", "
					   "x.metric COLLATE \"C\", x.tbox_group COLLATE \"C\", x.state, x.week" },
};

const struct db_stmt_table db_stmts_quality = DB_STMT_TABLE(stmts);

/* ST_QUALITY_ROWS' columns */
enum { Q_PLAN, Q_TESTCASE, Q_METRIC, Q_TBOX_GROUP, Q_STATE, Q_WEEK, Q_COUNT };

int db_quality_read(struct db_conn *c, const struct db_quality_query *q, struct db_quality *out,
		    struct err *e)
{
	char since[40], until[40];
	/* since and until are double precision in the SQL: sent as text */
	struct db_param p[6] = { db_text(since),       db_text(until),	   db_text(q->plan),
				 db_text(q->testcase), db_text(q->metric), db_text(q->tbox_group) };
	PGresult *r;
	int n;

	memset(out, 0, sizeof(*out));
	snprintf(since, sizeof(since), "%.6f", q->since);
	snprintf(until, sizeof(until), "%.6f", q->until);
	r = db_query(c, &stmts[ST_QUALITY_ROWS], 6, p, 0, e);
	if (!r)
		return -1;
	n = PQntuples(r);
	out->res_ = db_res_of(r);
	out->rows = xcalloc(n ? (size_t)n : 1, sizeof(*out->rows));
	for (int i = 0; i < n; i++) {
		struct db_quality_row *w = &out->rows[i];

		w->plan = PQgetisnull(r, i, Q_PLAN) ? NULL : PQgetvalue(r, i, Q_PLAN);
		w->testcase = PQgetvalue(r, i, Q_TESTCASE);
		w->metric = PQgetvalue(r, i, Q_METRIC);
		w->tbox_group = PQgetvalue(r, i, Q_TBOX_GROUP);
		w->state = PQgetvalue(r, i, Q_STATE);
		w->week = (int)strtol(PQgetvalue(r, i, Q_WEEK), NULL, 10);
		w->count = strtoll(PQgetvalue(r, i, Q_COUNT), NULL, 10);
	}
	out->nr = (size_t)n;
	return 0;
}

void db_quality_release(struct db_quality *q)
{
	free(q->rows);
	PQclear(db_pgres(q->res_));
	memset(q, 0, sizeof(*q));
}

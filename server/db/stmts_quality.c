/* Statements of the alert-quality ledger (db/quality.c, api/quality.c); see db.h. */
#include "server/db/stmts.h"

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

const struct db_stmt_def db_stmts_quality[DB_NR_STMTS] = {
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

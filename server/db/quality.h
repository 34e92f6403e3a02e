#ifndef REGTRACK_SERVER_DB_QUALITY_H
#define REGTRACK_SERVER_DB_QUALITY_H

/*
 * The alert-quality ledger's read (GET /api/v1/quality; server/detect/quality.h
 * turns the rows into precision and false alarms per week). Statement in
 * db/quality.c. Errors are the store's (db.h): ERR_DB_UNAVAILABLE (503),
 * ERR_DB (500), ERR_DB_TIMEOUT (503).
 */
#include <stddef.h>

#include "err.h"

struct db_conn;
struct db_result;

/* What to count: the records first detected (created_at) in [since, until). */
struct db_quality_query {
	double since, until; /* unix seconds (UTC) */
	/* exact names, NULL = any; borrowed for the call */
	const char *plan, *testcase, *metric, *tbox_group;
};

/*
 * How many records of one (plan, testcase, metric, tbox_group) were first
 * detected in one week of the window and are now in one state.
 */
struct db_quality_row {
	/*
	 * The record's plan: the plan of the first job that ran its setup at
	 * its first bad commit, else at its last good commit; NULL when no
	 * plan's job ran either (results posted by CI, a deleted plan).
	 */
	const char *plan;
	const char *testcase, *metric, *tbox_group;
	const char *state; /* one of regression_states (server/detect/regressions.h) */
	int week;	   /* floor((created_at - since) / 7 days): 0 = the window's first week */
	long long count;   /* >= 1 */
};

/* The rows of one read; strings point into res_ (freed by db_quality_release()). */
struct db_quality {
	struct db_quality_row *rows; /* new, nr of them */
	size_t nr;
	struct db_result *res_;
};

/*
 * Reads the counts of q's window and filters into out (release it with
 * db_quality_release() whatever the result). Rows are ordered by plan (no
 * plan first), testcase, metric, tbox_group (byte order), then state and
 * week: the rows of one (plan, testcase, metric, tbox_group) are
 * contiguous. 0, or -1 with e.
 */
int db_quality_read(struct db_conn *c, const struct db_quality_query *q, struct db_quality *out,
		    struct err *e) __attribute__((warn_unused_result));
void db_quality_release(struct db_quality *q);

#endif

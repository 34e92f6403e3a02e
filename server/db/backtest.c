/*
 * Typed reads of backtests (backtest.h; server/detect/backtest.c), and the
 * statements they are made with: reads only.
 */
#include "server/db/backtest.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "server/db/stmts.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* this file's statements, prepared with the others (db_stmt_table, db_int.h) */
enum backtest_stmt {
	ST_BACKTEST_SETUPS,
	ST_BACKTEST_RECORDS,
	ST_BACKTEST_SINCE,
	NR_BACKTEST_STMTS
};

static const struct db_stmt_def stmts[NR_BACKTEST_STMTS] = {
	/* $1 plan: the setups its jobs put runs into */
	[ST_BACKTEST_SETUPS] = { "backtest_setups",
				 "SELECT s.id, t.name, s.params::text, s.kconfig, s.compiler, s.tbox_group, s.mode, "
				 "s.monitors FROM setups s JOIN testcases t ON t.id = s.testcase_id WHERE s.id IN "
				 "(SELECT r.setup_id FROM runs r JOIN jobs j ON j.id = r.job_id "
				 "JOIN plans p ON p.id = j.plan_id WHERE p.name = $1) ORDER BY s.id" },
	/* $1 setup: every record, whatever its state */
	[ST_BACKTEST_RECORDS] = { "backtest_records",
				  "SELECT id, metric_id, good_commit_id, bad_commit_id, state FROM regressions "
				  "WHERE setup_id = $1::bigint ORDER BY id" },
	/* $1 setup $2 since: its commits dated since then (commit time, else first seen) */
	[ST_BACKTEST_SINCE] = { "backtest_since",
				"SELECT DISTINCT c.id FROM runs r JOIN commits c ON c.id = r.commit_id "
				"WHERE r.setup_id = $1::bigint AND coalesce(c.commit_time, c.first_seen) >= "
				"$2::timestamptz ORDER BY c.id" },
};

const struct db_stmt_table db_stmts_backtest = DB_STMT_TABLE(stmts);

/* ST_BACKTEST_SETUPS' columns */
enum {
	SETUP_ID,
	SETUP_TESTCASE,
	SETUP_PARAMS,
	SETUP_KCONFIG,
	SETUP_COMPILER,
	SETUP_TBOX_GROUP,
	SETUP_MODE,
	SETUP_MONITORS
};

int db_backtest_setups(struct db_conn *c, const char *name, struct db_backtest_setup **rows,
		       size_t *n, struct err *e)
{
	struct db_param p[1] = { db_text(name) };
	PGresult *r = db_query(c, &stmts[ST_BACKTEST_SETUPS], 1, p, 0, e);

	*rows = NULL;
	*n = 0;
	if (!r)
		return -1;
	*rows = xcalloc((size_t)PQntuples(r) + 1, sizeof(**rows));
	for (int i = 0; i < PQntuples(r); i++) {
		struct db_backtest_setup *s = &(*rows)[i];

		s->id = strtoll(PQgetvalue(r, i, SETUP_ID), NULL, 10);
		s->testcase = xstrdup(PQgetvalue(r, i, SETUP_TESTCASE));
		s->params = xstrdup(PQgetvalue(r, i, SETUP_PARAMS));
		s->kconfig = xstrdup(PQgetvalue(r, i, SETUP_KCONFIG));
		s->compiler = xstrdup(PQgetvalue(r, i, SETUP_COMPILER));
		s->tbox_group = xstrdup(PQgetvalue(r, i, SETUP_TBOX_GROUP));
		s->mode = xstrdup(PQgetvalue(r, i, SETUP_MODE));
		s->monitors = xstrdup(PQgetvalue(r, i, SETUP_MONITORS));
	}
	*n = (size_t)PQntuples(r);
	PQclear(r);
	return 0;
}

void db_backtest_setups_free(struct db_backtest_setup *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].testcase);
		free(rows[i].params);
		free(rows[i].kconfig);
		free(rows[i].compiler);
		free(rows[i].tbox_group);
		free(rows[i].mode);
		free(rows[i].monitors);
	}
	free(rows);
}

/* ST_BACKTEST_RECORDS' columns */
enum { REC_ID, REC_METRIC, REC_GOOD, REC_BAD, REC_STATE };

int db_backtest_records(struct db_conn *c, long long setup_id, struct db_backtest_record **rows,
			size_t *n, struct err *e)
{
	PGresult *r;

	*rows = NULL;
	*n = 0;
	r = db_query_id(c, &stmts[ST_BACKTEST_RECORDS], setup_id, e);
	if (!r)
		return -1;
	*rows = xcalloc((size_t)PQntuples(r) + 1, sizeof(**rows));
	for (int i = 0; i < PQntuples(r); i++) {
		struct db_backtest_record *x = &(*rows)[i];

		x->id = strtoll(PQgetvalue(r, i, REC_ID), NULL, 10);
		x->metric_id = strtoll(PQgetvalue(r, i, REC_METRIC), NULL, 10);
		x->good_commit = strtoll(PQgetvalue(r, i, REC_GOOD), NULL, 10);
		x->bad_commit = strtoll(PQgetvalue(r, i, REC_BAD), NULL, 10);
		snprintf(x->state, sizeof(x->state), "%s", PQgetvalue(r, i, REC_STATE));
	}
	*n = (size_t)PQntuples(r);
	PQclear(r);
	return 0;
}

/* ST_BACKTEST_SINCE's one column */
enum { SINCE_COMMIT };

int db_backtest_since(struct db_conn *c, long long setup_id, const char *since, long long **ids,
		      size_t *n, struct err *e)
{
	struct db_param p[2] = { db_int8(setup_id), db_text(since) };
	PGresult *r;

	*ids = NULL;
	*n = 0;
	r = db_query(c, &stmts[ST_BACKTEST_SINCE], 2, p, 0, e);
	if (!r)
		return -1;
	*ids = xcalloc((size_t)PQntuples(r) + 1, sizeof(**ids));
	for (int i = 0; i < PQntuples(r); i++)
		(*ids)[i] = strtoll(PQgetvalue(r, i, SINCE_COMMIT), NULL, 10);
	*n = (size_t)PQntuples(r);
	PQclear(r);
	return 0;
}

/* Typed reads of backtests; see backtest.h. */
#include "server/db/backtest.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ID_LEN 24

int db_backtest_setups(struct db_conn *c, const char *name, struct db_backtest_setup **rows,
		       size_t *n, struct err *e)
{
	const char *p[1] = { name };
	PGresult *r = db_exec(c, ST_BACKTEST_SETUPS, 1, p, e);

	*rows = NULL;
	*n = 0;
	if (!r)
		return -1;
	*rows = xcalloc((size_t)PQntuples(r) + 1, sizeof(**rows));
	for (int i = 0; i < PQntuples(r); i++) {
		struct db_backtest_setup *s = &(*rows)[i];

		s->id = strtoll(PQgetvalue(r, i, 0), NULL, 10);
		s->testcase = xstrdup(PQgetvalue(r, i, 1));
		s->params = xstrdup(PQgetvalue(r, i, 2));
		s->kconfig = xstrdup(PQgetvalue(r, i, 3));
		s->compiler = xstrdup(PQgetvalue(r, i, 4));
		s->tbox_group = xstrdup(PQgetvalue(r, i, 5));
		s->mode = xstrdup(PQgetvalue(r, i, 6));
		s->monitors = xstrdup(PQgetvalue(r, i, 7));
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

int db_backtest_records(struct db_conn *c, long long setup_id, struct db_backtest_record **rows,
			size_t *n, struct err *e)
{
	char sid[ID_LEN];
	const char *p[1] = { sid };
	PGresult *r;

	*rows = NULL;
	*n = 0;
	snprintf(sid, sizeof(sid), "%lld", setup_id);
	r = db_exec(c, ST_BACKTEST_RECORDS, 1, p, e);
	if (!r)
		return -1;
	*rows = xcalloc((size_t)PQntuples(r) + 1, sizeof(**rows));
	for (int i = 0; i < PQntuples(r); i++) {
		struct db_backtest_record *x = &(*rows)[i];

		x->id = strtoll(PQgetvalue(r, i, 0), NULL, 10);
		x->metric_id = strtoll(PQgetvalue(r, i, 1), NULL, 10);
		x->good_commit = strtoll(PQgetvalue(r, i, 2), NULL, 10);
		x->bad_commit = strtoll(PQgetvalue(r, i, 3), NULL, 10);
		snprintf(x->state, sizeof(x->state), "%s", PQgetvalue(r, i, 4));
	}
	*n = (size_t)PQntuples(r);
	PQclear(r);
	return 0;
}

int db_backtest_since(struct db_conn *c, long long setup_id, const char *since, long long **ids,
		      size_t *n, struct err *e)
{
	char sid[ID_LEN];
	const char *p[2] = { sid, since };
	PGresult *r;

	*ids = NULL;
	*n = 0;
	snprintf(sid, sizeof(sid), "%lld", setup_id);
	r = db_exec(c, ST_BACKTEST_SINCE, 2, p, e);
	if (!r)
		return -1;
	*ids = xcalloc((size_t)PQntuples(r) + 1, sizeof(**ids));
	for (int i = 0; i < PQntuples(r); i++)
		(*ids)[i] = strtoll(PQgetvalue(r, i, 0), NULL, 10);
	*n = (size_t)PQntuples(r);
	PQclear(r);
	return 0;
}

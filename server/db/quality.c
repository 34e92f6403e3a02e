/* The alert-quality ledger's read (see quality.h). */
#include "server/db/quality.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int db_quality_read(struct db_conn *c, const struct db_quality_query *q, struct db_quality *out,
		    struct err *e)
{
	char since[40], until[40];
	const char *p[6] = { since, until, q->plan, q->testcase, q->metric, q->tbox_group };
	PGresult *r;
	int n;

	memset(out, 0, sizeof(*out));
	snprintf(since, sizeof(since), "%.6f", q->since);
	snprintf(until, sizeof(until), "%.6f", q->until);
	r = db_exec(c, ST_QUALITY_ROWS, 6, p, e);
	if (!r)
		return -1;
	n = PQntuples(r);
	out->res_ = db_res_of(r);
	out->rows = xcalloc(n ? (size_t)n : 1, sizeof(*out->rows));
	for (int i = 0; i < n; i++) {
		struct db_quality_row *w = &out->rows[i];

		w->plan = PQgetisnull(r, i, 0) ? NULL : PQgetvalue(r, i, 0);
		w->testcase = PQgetvalue(r, i, 1);
		w->metric = PQgetvalue(r, i, 2);
		w->tbox_group = PQgetvalue(r, i, 3);
		w->state = PQgetvalue(r, i, 4);
		w->week = (int)strtol(PQgetvalue(r, i, 5), NULL, 10);
		w->count = strtoll(PQgetvalue(r, i, 6), NULL, 10);
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

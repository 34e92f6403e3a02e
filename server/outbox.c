#include "server/outbox.h"
#include "server/db/db.h"

#include <stdio.h>
#include <stdlib.h>

#include "banned.h"

/* Inserts one outbox row; returns its id or -1 with e. */
static long long queue(PGconn *c, const char *kind, long long regression_id,
		       long long bisect_id, struct err *e)
{
	char rid[24], bid[24];
	const char *p[3] = { kind, NULL, NULL };
	PGresult *r;
	long long id;

	if (regression_id > 0) {
		snprintf(rid, sizeof(rid), "%lld", regression_id);
		p[1] = rid;
	}
	if (bisect_id > 0) {
		snprintf(bid, sizeof(bid), "%lld", bisect_id);
		p[2] = bid;
	}
	r = db_exec(c, ST_OUTBOX_INSERT, 3, p, e);
	if (!r)
		return -1;
	id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	PQclear(r);
	return id;
}

int outbox_bisect_done(PGconn *c, long long bisect_id, struct err *e)
{
	return queue(c, "bisect", 0, bisect_id, e) < 0 ? -1 : 0;
}

long long outbox_regression_fixed(PGconn *c, long long regression_id, struct err *e)
{
	return queue(c, "fixed", regression_id, 0, e);
}

long long outbox_regression_report(PGconn *c, long long regression_id, struct err *e)
{
	char rid[24];
	const char *p[1] = { rid };
	PGresult *r;
	long long bisect_id;

	snprintf(rid, sizeof(rid), "%lld", regression_id);
	r = db_exec(c, ST_MAIL_REGRESSION_EXISTS, 1, p, e);
	if (!r)
		return -1;
	if (!PQntuples(r)) {
		PQclear(r);
		return err_set(e, 404, "not_found", "regression", "no regression %lld", regression_id);
	}
	bisect_id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	PQclear(r);
	return queue(c, bisect_id > 0 ? "bisect" : "range", regression_id, bisect_id, e);
}

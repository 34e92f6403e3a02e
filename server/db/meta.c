/* Typed reads of health, metric properties and row existence (see meta.h). */
#include "server/db/meta.h"

#include <string.h>

int db_health(PGconn *c, struct err *e)
{
	PGresult *r = db_exec(c, ST_HEALTH, 0, NULL, e);

	if (!r)
		return -1;
	PQclear(r);
	return 0;
}

int db_metric_set(PGconn *c, const char *name, const char *unit, const char *hib, const char *mon,
		  struct db_metric *out, struct err *e)
{
	const char *p[4] = { name, unit, hib, mon };
	PGresult *r = db_exec(c, ST_METRIC_SET, 4, p, e);

	memset(out, 0, sizeof(*out));
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return err_setc(e, ERR_DB, "name", "metric_set returned no row");
	}
	out->name = PQgetvalue(r, 0, 0);
	out->unit = PQgetvalue(r, 0, 1);
	out->higher_is_better = PQgetisnull(r, 0, 2) ? -1 : PQgetvalue(r, 0, 2)[0] == 't';
	out->is_monitor = PQgetvalue(r, 0, 3)[0] == 't';
	out->source = PQgetvalue(r, 0, 4);
	out->res_ = r;
	return 0;
}

void db_metric_free(struct db_metric *m)
{
	PQclear(m->res_);
	memset(m, 0, sizeof(*m));
}

int db_row_exists(PGconn *c, enum db_stmt st, const char *id, struct err *e)
{
	const char *p[1] = { id };
	PGresult *r = db_exec(c, st, 1, p, e);
	int n;

	if (!r)
		return -1;
	n = PQntuples(r) > 0;
	PQclear(r);
	return n;
}

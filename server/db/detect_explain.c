/* The reasons of the last detection of each series (see db/detect_explain.h). */
#include "server/db/detect_explain.h"
#include "server/db/db.h"
#include "server/db/db_int.h"

#include <stdio.h>

int db_detect_explain_set(struct db_conn *c, long long setup_id, const char *rows, struct err *e)
{
	char sb[24];
	const char *p[2] = { sb, rows };
	PGresult *r;

	snprintf(sb, sizeof(sb), "%lld", setup_id);
	r = db_exec(c, ST_DETECT_EXPLAIN_SET, 2, p, e);
	if (!r)
		return -1;
	PQclear(r);
	return 0;
}

int db_detect_explain_json(struct db_conn *c, long long setup_id, const char *metric, json_t **out,
			   struct err *e)
{
	char sb[24];
	const char *p[2] = { sb, metric };
	PGresult *r;

	*out = NULL;
	snprintf(sb, sizeof(sb), "%lld", setup_id);
	r = db_exec(c, ST_DETECT_EXPLAIN_JSON, 2, p, e);
	if (!r)
		return -1;
	if (PQntuples(r))
		*out = json_loads(PQgetvalue(r, 0, 0), 0, NULL);
	if (PQntuples(r) && !*out) {
		PQclear(r);
		return err_setc(e, ERR_DB, "", "bad JSON from the database");
	}
	PQclear(r);
	return 0;
}

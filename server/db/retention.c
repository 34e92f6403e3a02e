#include "server/db/retention.h"
#include "server/db/db.h"
#include "server/db/db_int.h"

#include <stdio.h>
#include <stdlib.h>

int db_retention(struct db_conn *c, long raw_days, long long *made, long long *summarised,
		 struct err *e)
{
	char days[24];
	const char *p[1] = { days };
	PGresult *r;

	snprintf(days, sizeof(days), "%ld", raw_days);
	/* one statement: the partitions exist before a month is summarised */
	r = PQexecParams(db_pg(c), "SELECT regtrack_partitions(2), regtrack_retention($1::integer)",
			 1, NULL, p, NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1) {
		int broke = PQstatus(db_pg(c)) != CONNECTION_OK;

		err_setc(e, broke ? ERR_DB_UNAVAILABLE : ERR_DB, "retention",
			 "retention failed: %s", PQerrorMessage(db_pg(c)));
		PQclear(r);
		return -1;
	}
	if (made)
		*made = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	if (summarised)
		*summarised = strtoll(PQgetvalue(r, 0, 1), NULL, 10);
	PQclear(r);
	return 0;
}

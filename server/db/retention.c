#include "server/db/retention.h"
#include "server/db/db.h"
#include "server/db/db_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* one retention pass at a time among the servers sharing the database */
#define RETENTION_LOCK "7302048"

static int fail(struct db_conn *c, PGresult *r, const char *what, struct err *e)
{
	int broke = PQstatus(db_pg(c)) != CONNECTION_OK;

	err_setc(e, broke ? ERR_DB_UNAVAILABLE : ERR_DB, "retention", "retention: %s failed: %s",
		 what, PQerrorMessage(db_pg(c)));
	PQclear(r);
	return -1;
}

/* "ALTER TABLE run_values DETACH PARTITION <name> <how>" or "DROP TABLE <name>", run alone */
static int table_cmd(struct db_conn *c, const char *fmt, const char *name, struct err *e)
{
	char *id = PQescapeIdentifier(db_pg(c), name, strlen(name));
	char sql[256];
	PGresult *r;

	if (!id)
		return fail(c, NULL, "quoting a partition's name", e);
	snprintf(sql, sizeof(sql), fmt, id);
	PQfreemem(id);
	r = PQexec(db_pg(c), sql);
	if (PQresultStatus(r) != PGRES_COMMAND_OK)
		return fail(c, r, sql, e);
	PQclear(r);
	return 0;
}

/*
 * The steps regtrack_retention_steps() returned (sql/0039), each its own
 * statement: DETACH ... CONCURRENTLY refuses a transaction block.
 */
static int run_steps(struct db_conn *c, PGresult *steps, long long *dropped, struct err *e)
{
	for (int i = 0; i < PQntuples(steps); i++) {
		const char *name = PQgetvalue(steps, i, 0), *step = PQgetvalue(steps, i, 1);

		if (!strcmp(step, "detach") &&
		    table_cmd(c, "ALTER TABLE run_values DETACH PARTITION %s CONCURRENTLY", name,
			      e))
			return -1;
		if (!strcmp(step, "finalize") &&
		    table_cmd(c, "ALTER TABLE run_values DETACH PARTITION %s FINALIZE", name, e))
			return -1;
		if (table_cmd(c, "DROP TABLE %s", name, e))
			return -1;
		if (strcmp(step, "drop"))
			(*dropped)++;
	}
	return 0;
}

int db_retention(struct db_conn *c, long raw_days, long long *made, long long *dropped,
		 struct err *e)
{
	char days[24];
	const char *p[1] = { days };
	long long n = 0;
	PGresult *r;
	int ret;

	r = PQexec(db_pg(c), "SELECT regtrack_partitions(2)");
	if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1)
		return fail(c, r, "making partitions", e);
	if (made)
		*made = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	PQclear(r);
	if (dropped)
		*dropped = 0;
	if (raw_days <= 0)
		return 0;
	r = PQexec(db_pg(c), "SELECT pg_try_advisory_lock(" RETENTION_LOCK ")");
	if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1)
		return fail(c, r, "locking", e);
	if (strcmp(PQgetvalue(r, 0, 0), "t")) {
		PQclear(r); /* another server's pass is under way */
		return 0;
	}
	PQclear(r);
	snprintf(days, sizeof(days), "%ld", raw_days);
	r = PQexecParams(db_pg(c),
			 "SELECT relname, step FROM regtrack_retention_steps($1::integer)", 1, NULL,
			 p, NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK)
		ret = fail(c, r, "recording the months to drop", e);
	else {
		ret = run_steps(c, r, &n, e);
		PQclear(r);
	}
	r = PQexec(db_pg(c), "SELECT pg_advisory_unlock(" RETENTION_LOCK ")");
	PQclear(r);
	if (dropped)
		*dropped = n;
	return ret;
}

#include "server/db/replica.h"
#include "server/db/db.h"
#include "server/db/db_int.h"

#include <stdlib.h>

/*
 * Ad-hoc, in no subject table (stmts.c): these run on the replica watcher's own two
 * connections (made with db_connect_once(), nothing prepared), once a
 * second. pg_lsn minus '0/0' is the position in bytes, a numeric.
 */
static int one_row(struct db_conn *c, const char *sql, PGresult **out, struct err *e)
{
	PGresult *r = PQexec(db_pg(c), sql);

	if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1) {
		if (PQstatus(db_pg(c)) != CONNECTION_OK)
			err_setc(e, ERR_DB_UNAVAILABLE, "db", "the database is unavailable: %s",
				 PQerrorMessage(db_pg(c)));
		else
			err_setc(e, ERR_DB, "db", "cannot read the WAL position: %s",
				 PQresultErrorMessage(r));
		PQclear(r);
		return -1;
	}
	*out = r;
	return 0;
}

int db_wal_position(struct db_conn *primary, uint64_t *lsn, struct err *e)
{
	PGresult *r;

	if (one_row(primary, "SELECT (pg_current_wal_lsn() - '0/0')::text", &r, e))
		return -1;
	*lsn = strtoull(PQgetvalue(r, 0, 0), NULL, 10);
	PQclear(r);
	return 0;
}

int db_standby_position(struct db_conn *standby, int *in_recovery, uint64_t *replay_lsn,
			struct err *e)
{
	PGresult *r;

	if (one_row(standby,
		    "SELECT pg_is_in_recovery(), "
		    "coalesce((pg_last_wal_replay_lsn() - '0/0')::text, '0')",
		    &r, e))
		return -1;
	*in_recovery = PQgetvalue(r, 0, 0)[0] == 't';
	*replay_lsn = *in_recovery ? strtoull(PQgetvalue(r, 0, 1), NULL, 10) : 0;
	PQclear(r);
	return 0;
}

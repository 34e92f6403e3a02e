#include "server/db/migrate.h"
#include "server/db/db.h"
#include "server/db/db_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int exec_ok(struct db_conn *conn, const char *sql, const char *what, struct err *e)
{
	PGresult *r = PQexec(db_pg(conn), sql);
	ExecStatusType st = PQresultStatus(r);

	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
		err_setc(e, ERR_DB, what, "migration step failed: %s", PQresultErrorMessage(r));
		PQclear(r);
		return -1;
	}
	PQclear(r);
	return 0;
}

static int applied_version(struct db_conn *conn, int version, struct err *e)
{
	char v[16];
	const char *params[1] = { v };
	PGresult *r;
	int found;

	snprintf(v, sizeof(v), "%d", version);
	r = PQexecParams(db_pg(conn), "SELECT 1 FROM schema_migrations WHERE version = $1", 1, NULL,
			 params, NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK) {
		err_setc(e, ERR_DB, "schema_migrations", "cannot read migrations: %s",
			 PQresultErrorMessage(r));
		PQclear(r);
		return -1;
	}
	found = PQntuples(r) > 0;
	PQclear(r);
	return found;
}

int migrate_apply(struct db_conn *conn, int *applied, struct err *e)
{
	int n = 0;

	if (applied)
		*applied = 0;
	if (exec_ok(conn,
		    "CREATE TABLE IF NOT EXISTS schema_migrations ("
		    " version integer PRIMARY KEY, name text NOT NULL,"
		    " applied_at timestamptz NOT NULL DEFAULT now())",
		    "schema_migrations", e))
		return -1;
	for (unsigned i = 0; i < nr_migrations; i++) {
		const struct migration *m = &migrations[i];
		char ver[16];
		const char *params[2] = { ver, m->name };
		PGresult *r;
		int done;

		if (exec_ok(conn, "BEGIN", m->name, e))
			return -1;
		/* one migrator at a time across server processes */
		if (exec_ok(conn, "SELECT pg_advisory_xact_lock(7302047)", m->name, e))
			goto rollback;
		done = applied_version(conn, m->version, e);
		if (done < 0)
			goto rollback;
		if (done) {
			if (exec_ok(conn, "COMMIT", m->name, e))
				return -1;
			continue;
		}
		if (exec_ok(conn, m->sql, m->name, e))
			goto rollback;
		snprintf(ver, sizeof(ver), "%d", m->version);
		r = PQexecParams(db_pg(conn),
				 "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", 2,
				 NULL, params, NULL, NULL, 0);
		if (PQresultStatus(r) != PGRES_COMMAND_OK) {
			err_setc(e, ERR_DB, m->name, "cannot record migration: %s",
				 PQresultErrorMessage(r));
			PQclear(r);
			goto rollback;
		}
		PQclear(r);
		if (exec_ok(conn, "COMMIT", m->name, e))
			return -1;
		n++;
	}
	if (applied)
		*applied = n;
	return 0;
rollback:
	PQclear(PQexec(db_pg(conn), "ROLLBACK"));
	return -1;
}

#ifndef REGTRACK_SERVER_MIGRATE_H
#define REGTRACK_SERVER_MIGRATE_H

#include "err.h"

struct db_conn;

/* One schema migration, embedded from sql/NNNN_name.sql at build time. */
struct migration {
	int version;
	const char *name;
	const char *sql;
};
extern const struct migration migrations[];
extern const unsigned nr_migrations;

/*
 * Applies every migration newer than the database's, in order, each in
 * its own transaction, recording it in schema_migrations (created when
 * missing). A transaction-level advisory lock makes concurrent servers
 * apply each migration once. *applied (may be NULL) gets the number of
 * migrations applied. Errors (-1, e filled, status 503): the database
 * failed a statement; that migration is rolled back and later ones are not
 * tried.
 */
int migrate_apply(struct db_conn *conn, int *applied, struct err *e)
	__attribute__((warn_unused_result));

#endif

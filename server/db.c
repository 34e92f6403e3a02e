#include "server/db.h"
#include "xalloc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

struct db {
	char *conninfo;
	long timeout_ms;
	pthread_key_t key;
};

static void conn_destroy(void *p)
{
	PQfinish(p);
}

struct db *db_new(const char *conninfo, long statement_timeout_ms)
{
	struct db *db = xcalloc(1, sizeof(*db));

	db->conninfo = xstrdup(conninfo);
	db->timeout_ms = statement_timeout_ms;
	if (pthread_key_create(&db->key, conn_destroy))
		abort();
	return db;
}

void db_free(struct db *db)
{
	PGconn *c;

	if (!db)
		return;
	c = pthread_getspecific(db->key);
	if (c) {
		PQfinish(c);
		pthread_setspecific(db->key, NULL);
	}
	pthread_key_delete(db->key);
	free(db->conninfo);
	free(db);
}

static void notice_quiet(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

PGconn *db_connect_once(const char *conninfo, struct err *e)
{
	PGconn *c = PQconnectdb(conninfo);

	if (PQstatus(c) != CONNECTION_OK) {
		err_set(e, 503, "db_unavailable", "db", "cannot connect to the database: %s",
			PQerrorMessage(c));
		PQfinish(c);
		return NULL;
	}
	PQsetNoticeProcessor(c, notice_quiet, NULL);
	return c;
}

static int prepare_all(struct db *db, PGconn *c, struct err *e)
{
	char sql[64];

	snprintf(sql, sizeof(sql), "SET statement_timeout = %ld", db->timeout_ms);
	if (db_cmd(c, sql, e))
		return -1;
	/*
	 * Sorts of a 10^5-point series (about 22 MB) or of a compare's 60,000
	 * (run, metric) rows spilled to disk at the default 4 MB (make bench,
	 * EXPLAIN ANALYZE: "external merge"). A limit per sort or hash node,
	 * used only as far as a query needs it.
	 */
	if (db_cmd(c, "SET work_mem = '64MB'", e))
		return -1;
	for (int i = 0; i < DB_NR_STMTS; i++) {
		PGresult *r = PQprepare(c, db_stmts[i].name, db_stmts[i].sql, 0, NULL);
		if (PQresultStatus(r) != PGRES_COMMAND_OK) {
			err_set(e, 500, "db_error", db_stmts[i].name, "cannot prepare '%s': %s",
				db_stmts[i].name, PQresultErrorMessage(r));
			PQclear(r);
			return -1;
		}
		PQclear(r);
	}
	return 0;
}

PGconn *db_conn(struct db *db, struct err *e)
{
	PGconn *c = pthread_getspecific(db->key);

	if (c && PQstatus(c) == CONNECTION_OK && PQtransactionStatus(c) == PQTRANS_IDLE)
		return c;
	if (c) {
		PQfinish(c);
		pthread_setspecific(db->key, NULL);
	}
	c = db_connect_once(db->conninfo, e);
	if (!c)
		return NULL;
	if (prepare_all(db, c, e)) {
		PQfinish(c);
		return NULL;
	}
	pthread_setspecific(db->key, c);
	return c;
}

static PGresult *check(PGconn *c, PGresult *r, const char *what, struct err *e)
{
	ExecStatusType st = PQresultStatus(r);
	const char *state;

	if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
		return r;
	state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
	if (PQstatus(c) != CONNECTION_OK || (state && !strncmp(state, "08", 2)) ||
	    (state && !strcmp(state, "57P01")))
		err_set(e, 503, "db_unavailable", what, "the database is unavailable: %s",
			PQresultErrorMessage(r));
	else if (state && !strcmp(state, "23505"))
		err_set(e, 409, "conflict", what, "already exists: %s", PQresultErrorMessage(r));
	else if (state && !strcmp(state, "57014"))
		err_set(e, 503, "db_timeout", what, "the database query timed out");
	else
		err_set(e, 500, "db_error", what, "database error: %s", PQresultErrorMessage(r));
	PQclear(r);
	return NULL;
}

PGresult *db_exec(PGconn *c, enum db_stmt st, int n, const char *const *params, struct err *e)
{
	PGresult *r = PQexecPrepared(c, db_stmts[st].name, n, params, NULL, NULL, 0);
	return check(c, r, db_stmts[st].name, e);
}

PGresult *db_exec_binary(PGconn *c, enum db_stmt st, int n, const char *const *params,
			 struct err *e)
{
	PGresult *r = PQexecPrepared(c, db_stmts[st].name, n, params, NULL, NULL, 1);
	return check(c, r, db_stmts[st].name, e);
}

int db_cmd(PGconn *c, const char *sql, struct err *e)
{
	PGresult *r = check(c, PQexec(c, sql), sql, e);

	if (!r)
		return -1;
	PQclear(r);
	return 0;
}

long long db_copy_in(PGconn *c, const char *sql, const char *data, size_t len, struct err *e)
{
	PGresult *r = PQexec(c, sql);
	long long rows;

	if (PQresultStatus(r) != PGRES_COPY_IN) {
		r = check(c, r, sql, e);
		if (r) {
			PQclear(r);
			err_set(e, 500, "db_error", sql, "not a COPY FROM STDIN");
		}
		return -1;
	}
	PQclear(r);
	/* in blocking mode PQputCopyData sends everything or fails */
	while (len) {
		int chunk = len > (1u << 30) ? 1 << 30 : (int)len;

		if (PQputCopyData(c, data, chunk) != 1)
			break;
		data += chunk;
		len -= (size_t)chunk;
	}
	if (PQputCopyEnd(c, len ? "client could not send the data" : NULL) != 1) {
		err_set(e, 503, "db_unavailable", sql, "the database is unavailable: %s",
			PQerrorMessage(c));
		while ((r = PQgetResult(c)))
			PQclear(r);
		return -1;
	}
	r = check(c, PQgetResult(c), sql, e);
	rows = r ? strtoll(PQcmdTuples(r), NULL, 10) : -1;
	if (r)
		PQclear(r);
	/* drain: the command's result is followed by NULL */
	{
		PGresult *x;
		while ((x = PQgetResult(c)))
			PQclear(x);
	}
	return rows;
}

int db_begin(PGconn *c, struct err *e)
{
	return db_cmd(c, "BEGIN", e);
}

int db_commit(PGconn *c, struct err *e)
{
	return db_cmd(c, "COMMIT", e);
}

void db_rollback(PGconn *c)
{
	if (PQtransactionStatus(c) != PQTRANS_IDLE)
		PQclear(PQexec(c, "ROLLBACK"));
}

#include "server/db/db.h"
#include "server/db/db_int.h"
#include <libpq-events.h>
#include "server/log.h"
#include "xalloc.h"

#include <ctype.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct db {
	char *conninfo;
	long timeout_ms;
	int standby;	     /* db_new_standby(): connect with db_connect_standby() */
	struct db *fallback; /* db_set_fallback(): borrowed */
	pthread_key_t key;
};

static void conn_destroy(void *p)
{
	PQfinish(p);
}

struct db *db_new(const char *conninfo, long statement_timeout_ms)
{
	struct db *db;
	const char *bad = db_stmts_check();

	if (bad) {
		slog_error("statement table: %s is defined twice or without its SQL", bad);
		abort();
	}
	db = xcalloc(1, sizeof(*db));
	db->conninfo = xstrdup(conninfo);
	db->timeout_ms = statement_timeout_ms;
	if (pthread_key_create(&db->key, conn_destroy))
		abort();
	return db;
}

struct db *db_new_standby(const char *conninfo, long statement_timeout_ms)
{
	struct db *db = db_new(conninfo, statement_timeout_ms);

	db->standby = 1;
	return db;
}

void db_set_fallback(struct db *standby, struct db *primary)
{
	standby->fallback = primary;
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

/*
 * Notices are not printed (a server's log is not the place for "NOTICE:
 * relation already exists"). A FATAL or PANIC that arrives while the
 * connection is idle comes here too (libpq treats an error between
 * statements as a notice): its backend is ending (pg_terminate_backend, a
 * shutdown); idle_conn_alive() reads it.
 */
static __thread int fatal_while_idle;

static void notice_receiver(void *arg, const PGresult *r)
{
	const char *sev = PQresultErrorField(r, PG_DIAG_SEVERITY_NONLOCALIZED);

	(void)arg;
	if (sev && (!strcmp(sev, "FATAL") || !strcmp(sev, "PANIC")))
		fatal_while_idle = 1;
}

static PGconn *connected(PGconn *c, struct err *e)
{
	if (PQstatus(c) != CONNECTION_OK) {
		err_setc(e, ERR_DB_UNAVAILABLE, "db", "cannot connect to the database: %s",
			 PQerrorMessage(c));
		PQfinish(c);
		return NULL;
	}
	PQsetNoticeReceiver(c, notice_receiver, NULL);
	return c;
}

static PGconn *connect_once(const char *conninfo, struct err *e)
{
	return connected(PQconnectdb(conninfo), e);
}

static PGconn *connect_standby(const char *conninfo, struct err *e)
{
	/* a key of conninfo (expanded from dbname) overrides the ones before it */
	static const char *const keys[] = { "connect_timeout", "dbname", NULL };
	const char *vals[] = { "2", conninfo, NULL };

	return connected(PQconnectdbParams(keys, vals, 1), e);
}

struct db_conn *db_connect_once(const char *conninfo, struct err *e)
{
	return db_conn_of(connect_once(conninfo, e));
}

struct db_conn *db_connect_standby(const char *conninfo, struct err *e)
{
	return db_conn_of(connect_standby(conninfo, e));
}

void db_close(struct db_conn *c)
{
	PQfinish(db_pg(c));
}

static int cmd(PGconn *c, const char *sql, struct err *e);

static int prepare_one(PGconn *c, const struct db_stmt_def *s, struct err *e)
{
	PGresult *r = PQprepare(c, s->name, s->sql, 0, NULL);

	if (PQresultStatus(r) != PGRES_COMMAND_OK) {
		err_setc(e, ERR_DB, s->name, "cannot prepare '%s': %s", s->name,
			 PQresultErrorMessage(r));
		PQclear(r);
		return -1;
	}
	PQclear(r);
	return 0;
}

/* every statement: each subject table's */
static int prepare_stmts(PGconn *c, struct err *e)
{
	const struct db_stmt_table *t;

	for (size_t k = 0; (t = db_subject_table(k)); k++)
		for (int i = 0; i < t->n; i++)
			if (prepare_one(c, &t->defs[i], e))
				return -1;
	return 0;
}

int db_prepare_all(struct db_conn *c, struct err *e)
{
	return prepare_stmts(db_pg(c), e);
}

static int prepare_all(struct db *db, PGconn *c, struct err *e)
{
	char sql[64];

	snprintf(sql, sizeof(sql), "SET statement_timeout = %ld", db->timeout_ms);
	if (cmd(c, sql, e))
		return -1;
	/*
	 * The sorts of the large reads (a long series, a compare) spill to
	 * disk at the default 4 MB; this is a limit per sort or hash node,
	 * used only as far as a query needs it.
	 */
	if (cmd(c, "SET work_mem = '64MB'", e))
		return -1;
	/*
	 * JIT compiling of a costly plan (a long series) takes longer than it
	 * saves, on every request: our statements are short and run often.
	 */
	if (cmd(c, "SET jit = off", e))
		return -1;
	return prepare_stmts(c, e);
}

/*
 * A connection whose backend ended while it sat idle in this thread's
 * slot: a PostgreSQL restart or pg_terminate_backend() makes the backend
 * send a FATAL message and close the socket, which libpq only noticed at
 * the next statement, so each server thread failed its next request with
 * 503 after a restart. An idle connection has nothing to
 * read unless such a message (or a NOTIFY, which libpq keeps for
 * PQnotifies: the detect thread LISTENs) came: read it now; a FATAL among
 * it, or the end of file, and the connection is not handed out again.
 */
static int idle_conn_alive(PGconn *c)
{
	struct pollfd p = { .fd = PQsocket(c), .events = POLLIN };

	if (p.fd < 0)
		return 0;
	if (poll(&p, 1, 0) <= 0)
		return 1;
	fatal_while_idle = 0;
	if (!PQconsumeInput(c) || fatal_while_idle)
		return 0;
	return PQstatus(c) == CONNECTION_OK;
}

/* after PQreset() (retry_once): the session settings and statements again */
static int on_reset(PGEventId id, void *info, void *pass)
{
	struct err e;

	if (id != PGEVT_CONNRESET)
		return 1;
	return !prepare_all(pass, ((PGEventConnReset *)info)->conn, &e);
}

/* one log line of prefix and libpq's text (several lines, a newline at the end) */
static void log_pq_text(const char *prefix, const char *text)
{
	char line[sizeof(((struct err *)0)->message)];
	size_t n = 0;

	for (const char *p = text; *p && n + 1 < sizeof(line); p++)
		if (!isspace((unsigned char)*p) || (n && line[n - 1] != ' '))
			line[n++] = isspace((unsigned char)*p) ? ' ' : *p;
	while (n && line[n - 1] == ' ')
		n--;
	line[n] = 0;
	slog_error("%s%s", prefix, line);
}

static PGconn *thread_conn(struct db *db, struct err *e)
{
	PGconn *c = pthread_getspecific(db->key);
	struct err ce;

	if (c && PQstatus(c) == CONNECTION_OK && PQtransactionStatus(c) == PQTRANS_IDLE &&
	    idle_conn_alive(c))
		return c;
	if (c) {
		PQfinish(c);
		pthread_setspecific(db->key, NULL);
	}
	c = db->standby ? connect_standby(db->conninfo, &ce) : connect_once(db->conninfo, &ce);
	if (!c) {
		/* libpq's text names the socket, host, database or role: the log's, never a reply's */
		log_pq_text("db: ", ce.message);
		err_setc(e, ERR_DB_UNAVAILABLE, "db", "cannot connect to the database (logged)");
		return NULL;
	}
	if (!PQregisterEventProc(c, on_reset, "regtrack-db", db) ||
	    !PQsetInstanceData(c, on_reset, db)) {
		err_setc(e, ERR_DB, "db", "cannot register the connection's reset handler");
		PQfinish(c);
		return NULL;
	}
	if (prepare_all(db, c, &ce)) {
		/* PostgreSQL's text names relations and columns (a schema not migrated) */
		log_pq_text("db: ", ce.message);
		err_setc(e, ce.id, ce.detail, "cannot prepare the statements (logged)");
		PQfinish(c);
		return NULL;
	}
	pthread_setspecific(db->key, c);
	return c;
}

struct db_conn *db_conn(struct db *db, struct err *e)
{
	return db_conn_of(thread_conn(db, e));
}

static PGresult *check(PGconn *c, PGresult *r, const char *what, struct err *e)
{
	ExecStatusType st = PQresultStatus(r);
	const char *state;

	if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
		return r;
	state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
	/*
	 * PostgreSQL's text names indexes, constraints and values of other
	 * rows: it goes to the log, the reply says only what kind of failure
	 * it was (detail: the statement).
	 */
	slog_error("db: %s: %s%s%s", what, state ? state : "", state ? " " : "",
		   PQresultErrorMessage(r));
	if (PQstatus(c) != CONNECTION_OK || (state && !strncmp(state, "08", 2)) ||
	    (state && !strcmp(state, "57P01")))
		err_setc(e, ERR_DB_UNAVAILABLE, what, "the database is unavailable");
	else if (state && !strcmp(state, "23505"))
		err_setc(e, ERR_CONFLICT, what, "already exists");
	else if (state && !strcmp(state, "57014"))
		err_setc(e, ERR_DB_TIMEOUT, what, "the database query timed out");
	else
		err_setc(e, ERR_DB, what, "the database refused the request (logged)");
	PQclear(r);
	return NULL;
}

/*
 * A statement that failed because the connection broke is sent once more
 * on the same PGconn, reconnected (PQreset; on_reset prepares again), when
 * that cannot do anything twice: a SELECT (ours change nothing) sent
 * outside a transaction, and BEGIN (db_cmd()). The window idle_conn_alive()
 * cannot close: a backend ended between db_conn() and the request's first
 * statement, which is a SELECT (the token's lookup) in every authenticated
 * request, or the BEGIN of the ingest's transaction on its pool thread.
 */
/*
 * Whether r, the failed result of a statement sent in transaction state
 * `before`, may be sent again: the connection broke outside a transaction
 * and PQreset() brought it back (r is cleared then). safe: the statement
 * cannot do anything twice.
 */
static int reset_to_retry(PGconn *c, PGTransactionStatusType before, PGresult *r, int safe)
{
	ExecStatusType rs = PQresultStatus(r);

	if (!safe || rs == PGRES_COMMAND_OK || rs == PGRES_TUPLES_OK || before != PQTRANS_IDLE ||
	    PQstatus(c) == CONNECTION_OK)
		return 0;
	PQreset(c);
	if (PQstatus(c) != CONNECTION_OK)
		return 0;
	PQclear(r);
	return 1;
}

/*
 * r, the failed result (NULL: not sent) of a SELECT sent outside a
 * transaction on a standby's connection c that has a fallback, or on one
 * that broke under an earlier statement of the request (which went to the
 * primary this way; the ones after it follow): when the standby went away
 * (the connection broke and PQreset() could not bring it back) or
 * cancelled the query for a conflict with recovery (40001), the thread's
 * connection to the primary, which the statement is sent to instead (r
 * is cleared then); NULL otherwise. A standby stopped in the middle of a
 * request costs the read a reconnect, not a 503.
 */
static PGconn *fallback_for(PGconn *c, PGTransactionStatusType before, PGresult *r, int select,
			    const char *what)
{
	struct db *db = PQinstanceData(c, on_reset);
	ExecStatusType rs = PQresultStatus(r);
	const char *state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
	PGconn *p;
	struct err e;

	/* a connection that broke under an earlier statement is UNKNOWN, not IDLE */
	if (!db || !db->fallback || !select ||
	    (before != PQTRANS_IDLE && before != PQTRANS_UNKNOWN) || rs == PGRES_COMMAND_OK ||
	    rs == PGRES_TUPLES_OK)
		return NULL;
	if (PQstatus(c) == CONNECTION_OK && !(state && !strcmp(state, "40001")))
		return NULL;
	p = thread_conn(db->fallback, &e);
	if (!p)
		return NULL;
	slog_warn("replica: '%s' failed there (%s): read from the primary", what,
		  PQstatus(c) == CONNECTION_OK ? "conflict with recovery" : "connection lost");
	PQclear(r);
	return p;
}

/* a statement's parameters as PQexecPrepared() takes them (db_param's forms) */
struct bound {
	int n;
	const char *vals[DB_MAX_PARAMS];
	int lens[DB_MAX_PARAMS], fmts[DB_MAX_PARAMS];
	char be[DB_MAX_PARAMS][8]; /* the int8 values, big-endian */
};

static int bind_params(struct bound *b, int n, const struct db_param *p, const char *what,
		       struct err *e)
{
	if (n < 0 || n > DB_MAX_PARAMS)
		return err_setc(e, ERR_DB, what, "too many parameters (%d)", n);
	b->n = n;
	for (int i = 0; i < n; i++) {
		unsigned long long v = (unsigned long long)p[i].int8;

		b->lens[i] = 0;
		b->fmts[i] = p[i].is_int8;
		b->vals[i] = p[i].text;
		if (!p[i].is_int8)
			continue;
		for (int k = 7; k >= 0; k--, v >>= 8)
			b->be[i][k] = (char)(v & 0xff);
		b->vals[i] = b->be[i];
		b->lens[i] = 8;
	}
	return 0;
}

static PGresult *send_prepared(PGconn *c, const char *name, const struct bound *b, int binary)
{
	return PQexecPrepared(c, name, b->n, b->vals, b->lens, b->fmts, binary);
}

/* *used: the connection the result came from (c, or the primary's after fallback_for()) */
static PGresult *exec_prepared(PGconn *c, const struct db_stmt_def *s, const struct bound *b,
			       int binary, PGconn **used)
{
	const char *name = s->name;
	PGTransactionStatusType before = PQtransactionStatus(c);
	int select = !strncmp(s->sql, "SELECT ", 7);
	PGresult *r = send_prepared(c, name, b, binary);
	PGconn *p;

	if (reset_to_retry(c, before, r, select))
		r = send_prepared(c, name, b, binary);
	*used = c;
	if ((p = fallback_for(c, before, r, select, name))) {
		*used = p;
		r = send_prepared(p, name, b, binary);
	}
	return r;
}

PGresult *db_query(struct db_conn *conn, const struct db_stmt_def *s, int n,
		   const struct db_param *p, int binary, struct err *e)
{
	PGconn *c = db_pg(conn);
	struct bound b;
	PGresult *r;

	if (bind_params(&b, n, p, s->name, e))
		return NULL;
	r = exec_prepared(c, s, &b, binary, &c);
	return check(c, r, s->name, e);
}

static int cmd(PGconn *c, const char *sql, struct err *e)
{
	PGTransactionStatusType before = PQtransactionStatus(c);
	PGresult *r = PQexec(c, sql);

	/* BEGIN on a connection that broke: as exec_prepared() with a SELECT */
	if (reset_to_retry(c, before, r, !strcmp(sql, "BEGIN")))
		r = PQexec(c, sql);
	r = check(c, r, sql, e);

	if (!r)
		return -1;
	PQclear(r);
	return 0;
}

int db_cmd(struct db_conn *c, const char *sql, struct err *e)
{
	return cmd(db_pg(c), sql, e);
}

long long db_copy_in(struct db_conn *conn, const char *sql, const char *data, size_t len,
		     struct err *e)
{
	PGconn *c = db_pg(conn);
	PGresult *r = PQexec(c, sql);
	long long rows;

	if (PQresultStatus(r) != PGRES_COPY_IN) {
		r = check(c, r, sql, e);
		if (r) {
			PQclear(r);
			err_setc(e, ERR_DB, sql, "not a COPY FROM STDIN");
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
		log_pq_text("db: COPY: ", PQerrorMessage(c));
		err_setc(e, ERR_DB_UNAVAILABLE, sql, "the database is unavailable");
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

int db_begin(struct db_conn *c, struct err *e)
{
	return db_cmd(c, "BEGIN", e);
}

int db_begin_read_only(struct db_conn *c, struct err *e)
{
	return db_cmd(c, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", e);
}

int db_commit(struct db_conn *c, struct err *e)
{
	return db_cmd(c, "COMMIT", e);
}

/* sql (an undo) unless c is outside a transaction; its failure is not reported */
static void undo(struct db_conn *c, const char *sql)
{
	if (PQtransactionStatus(db_pg(c)) != PQTRANS_IDLE)
		PQclear(PQexec(db_pg(c), sql));
}

void db_rollback(struct db_conn *c)
{
	undo(c, "ROLLBACK");
}

int db_in_transaction(struct db_conn *c)
{
	return PQtransactionStatus(db_pg(c)) == PQTRANS_INTRANS;
}

int db_savepoint(struct db_conn *c, struct err *e)
{
	return db_cmd(c, "SAVEPOINT nested", e);
}

int db_savepoint_release(struct db_conn *c, struct err *e)
{
	return db_cmd(c, "RELEASE SAVEPOINT nested", e);
}

void db_savepoint_rollback(struct db_conn *c)
{
	undo(c, "ROLLBACK TO SAVEPOINT nested");
}

int db_notifications_drain(struct db_conn *c)
{
	PGnotify *nf;
	int n = 0;

	PQconsumeInput(db_pg(c));
	while ((nf = PQnotifies(db_pg(c)))) {
		PQfreemem(nf);
		n++;
	}
	return n;
}

int db_idle_socket(struct db_conn *c)
{
	PGconn *pg = db_pg(c);

	if (PQstatus(pg) != CONNECTION_OK || PQtransactionStatus(pg) != PQTRANS_IDLE)
		return -1;
	return PQsocket(pg);
}

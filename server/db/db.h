#ifndef REGTRACK_SERVER_DB_H
#define REGTRACK_SERVER_DB_H

#include "err.h"

/*
 * The database layer's connection handling: one libpq connection per
 * server thread, made on first use, with every statement of every
 * subject's table prepared on it (db_int.h); a connection found broken is reset on the next call,
 * so the server reconnects by itself when PostgreSQL comes back.
 *
 * All SQL lives in server/db/; the rest of the server calls its typed
 * functions. Outside server/db/ a connection is an opaque struct db_conn
 * and a result kept by a row struct an opaque struct db_result: libpq,
 * the statement ids and SQL text stay in the room (db/db_int.h,
 * tests/lint-server.sh (f)).
 *
 * The store's errors, which every typed call of server/db/ gives unless
 * its header says more: -1 (or NULL) with e filled as ERR_DB_UNAVAILABLE
 * (503 "db_unavailable": the connection broke and could not be made
 * again), ERR_DB_TIMEOUT (503 "db_timeout": a statement ran past the
 * statement timeout), ERR_CONFLICT (409 "conflict": a unique key already
 * holds the row) or ERR_DB (500 "db_error": PostgreSQL refused the
 * statement; its message is logged, never put in a reply).
 */
struct db;
struct db_conn;
struct db_result;

/* New handle for `conninfo` (copied); connects lazily per thread. */
struct db *db_new(const char *conninfo, long statement_timeout_ms);
/*
 * db_new() for a hot standby (the read replica, server/replica.h): its
 * connections are made by db_connect_standby(), so that a standby that
 * does not answer holds a request a few seconds at most.
 */
struct db *db_new_standby(const char *conninfo, long statement_timeout_ms);
/*
 * A SELECT sent outside a transaction on a connection of standby whose
 * standby went away (a broken connection PQreset() cannot restore) or
 * cancelled it for a conflict with recovery (40001) is sent again on the
 * calling thread's connection of primary (db_conn()), with a log line: a
 * replica stopped mid-request costs the read a reconnect, not a 503.
 * primary is borrowed and must outlive standby.
 */
void db_set_fallback(struct db *standby, struct db *primary);
/* Closes the calling thread's connection; others close when their thread exits. */
void db_free(struct db *db);

/*
 * The calling thread's connection, connected and prepared. Borrowed: valid
 * until the thread exits or the next db_conn() after a failure. One whose
 * backend ended while idle (a PostgreSQL restart, pg_terminate_backend) is
 * noticed here and replaced, not handed out to fail. Errors (NULL, e
 * filled): status 503, code "db_unavailable".
 */
struct db_conn *db_conn(struct db *db, struct err *e);

/* Shorthands for transaction control; rollback never fails loudly. */
/*
 * BEGIN of a read-only transaction that sees one snapshot (REPEATABLE
 * READ): every write in it fails, so a caller that only reads (a
 * backtest) cannot change anything stored. End it with db_rollback().
 */
int db_begin_read_only(struct db_conn *c, struct err *e) __attribute__((warn_unused_result));
int db_begin(struct db_conn *c, struct err *e) __attribute__((warn_unused_result));
int db_commit(struct db_conn *c, struct err *e) __attribute__((warn_unused_result));
void db_rollback(struct db_conn *c);
/* Whether c is inside a transaction block that has not failed (BEGIN was sent). */
int db_in_transaction(struct db_conn *c);
/*
 * A savepoint inside the caller's transaction, for work that must be undone
 * alone (an ingest inside a job's completion): db_savepoint() sets it,
 * db_savepoint_release() keeps what was done since, db_savepoint_rollback()
 * undoes it (and, like db_rollback(), never fails loudly; nothing when c is
 * not in a transaction). One name: an inner savepoint hides an outer one
 * until it is released or rolled back to. Errors: as db_begin().
 */
int db_savepoint(struct db_conn *c, struct err *e) __attribute__((warn_unused_result));
int db_savepoint_release(struct db_conn *c, struct err *e) __attribute__((warn_unused_result));
void db_savepoint_rollback(struct db_conn *c);

/*
 * Reads what the server sent and throws the notifications that came
 * (LISTEN, e.g. db_detect_listen()) away: the caller is about to do what
 * they announce. Returns how many there were.
 */
int db_notifications_drain(struct db_conn *c);
/*
 * The socket of c for poll(2) when c is connected and idle (outside a
 * transaction), so that a NOTIFY wakes the caller; -1 otherwise.
 * Borrowed: c owns it.
 */
int db_idle_socket(struct db_conn *c);

/*
 * Connects once on the calling thread (for CLI subcommands: migrate, token):
 * new, closed with db_close(); NULL with e (503 "db_unavailable").
 */
struct db_conn *db_connect_once(const char *conninfo, struct err *e);
/*
 * db_connect_once() with connect_timeout 2 s unless conninfo gives its
 * own: for the standby, where a timeout sends a read to the primary.
 */
struct db_conn *db_connect_standby(const char *conninfo, struct err *e);
/*
 * Prepares every statement on c, a connection of db_connect_once() (db_conn()
 * prepares its own): 0, or -1 with e (500 "db_error", detail the
 * statement's name) at the first one PostgreSQL refuses.
 */
int db_prepare_all(struct db_conn *c, struct err *e) __attribute__((warn_unused_result));
/* Closes c, a connection of db_connect_once() or db_connect_standby(); NULL: nothing. */
void db_close(struct db_conn *c);

#endif

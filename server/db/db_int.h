#ifndef REGTRACK_SERVER_DB_INT_H
#define REGTRACK_SERVER_DB_INT_H

#include <libpq-fe.h>

#include "err.h"

struct db_conn;
struct db_result;

/*
 * server/db/'s own header, included by its .c files only (the lint,
 * tests/lint-server.sh (f), refuses it elsewhere): the statement tables, the
 * calls that run a statement, and libpq.
 *
 * struct db_conn is never defined: a struct db_conn * is the PGconn * of
 * the connection, converted by db_pg() and db_conn_of(); likewise struct
 * db_result and PGresult (db_pgres(), db_res_of()). C allows the round
 * trip through a pointer to another struct type, and nothing dereferences
 * the opaque side.
 */
static inline PGconn *db_pg(struct db_conn *c)
{
	return (PGconn *)c;
}

static inline struct db_conn *db_conn_of(PGconn *c)
{
	return (struct db_conn *)c;
}

static inline PGresult *db_pgres(struct db_result *r)
{
	return (PGresult *)r;
}

static inline struct db_result *db_res_of(PGresult *r)
{
	return (struct db_result *)r;
}

/* A prepared statement: its name (unique among all) and its SQL, static. */
struct db_stmt_def {
	const char *name;
	const char *sql;
};

/*
 * One parameter of db_query(): text in PostgreSQL's text form (NULL: SQL
 * NULL), or an int8 sent in binary (8 bytes, network byte order), which
 * spares printing it here and int8in() parsing it there. A binary value
 * needs the parameter's type known when the statement is prepared; ours
 * declare it with a cast in the SQL ($n::bigint), which libpq's manual
 * (PQexecParams) gives as the way to fix a parameter's type in place of
 * paramTypes OIDs. Bound to a parameter of another type (an $n::integer),
 * the value is refused by PostgreSQL ("incorrect binary data format",
 * ERR_DB), never read as something else.
 */
struct db_param {
	int is_int8;	  /* 1: int8 below; 0: text */
	const char *text; /* borrowed; NULL = SQL NULL */
	long long int8;
};

static inline struct db_param db_text(const char *s)
{
	return (struct db_param){ .text = s };
}

static inline struct db_param db_int8(long long v)
{
	return (struct db_param){ .is_int8 = 1, .int8 = v };
}

/* An id parameter: int8, SQL NULL when id is 0 (keys start at 1: 0 is none). */
static inline struct db_param db_id(long long id)
{
	return id ? db_int8(id) : db_text(NULL);
}

/* The most parameters one statement takes (db_query() refuses more: ERR_DB). */
#define DB_MAX_PARAMS 40

/*
 * A subject's own statements, defined in the file that reads them and
 * indexed by an enum private to that file (a per-subject statement id),
 * so that a statement's SQL, its parameters and the names of its columns
 * sit beside the code that reads them. stmts.c lists every such table
 * (db_subject_table()) and each connection prepares them with the others;
 * a name must be unique among all statements (PostgreSQL refuses a second
 * prepare of a name, and the connection fails at once).
 */
struct db_stmt_table {
	const struct db_stmt_def *defs;
	int n;
};
#define DB_STMT_TABLE(a)                               \
	{                                              \
		(a), (int)(sizeof(a) / sizeof((a)[0])) \
	}
/* The i-th subject table (stmts.c), NULL past the last. Borrowed: static. */
const struct db_stmt_table *db_subject_table(size_t i);
/* The statement named name in any subject table, or NULL. Borrowed: static. */
const struct db_stmt_def *db_stmt_by_name(const char *name);
/*
 * Checks the subject tables: NULL when every entry has a name and SQL and
 * no name is used twice; otherwise the first name used twice (or a note
 * of an entry without one), static. db_new() aborts on a non-NULL answer,
 * so a table edit that leaves a gap or repeats a name fails at start, not
 * at a connection's prepare.
 */
const char *db_stmts_check(void);

/*
 * Runs prepared statement s (an entry of its subject's table) with the n
 * parameters p (db_param above; n at most DB_MAX_PARAMS). Returns a
 * PGresult (caller PQclear()s) whose status is COMMAND_OK or TUPLES_OK;
 * otherwise NULL with e filled: 503 "db_unavailable" when the connection
 * broke, 503 "db_timeout" past the statement timeout, 409 "conflict" on
 * a unique violation, 500 "db_error" otherwise (PostgreSQL's message is
 * logged, never put in e), ERR_DB when n is over DB_MAX_PARAMS. A
 * SELECT sent outside a transaction whose connection broke is sent once
 * more on the same PGconn, reconnected (PQreset, statements prepared
 * again); db_cmd() does the same for BEGIN. binary: the result in
 * PostgreSQL's binary format (every column: int8 as 8 bytes big-endian,
 * float8[] as array_send() writes it; see server/db/pgval.h), for the
 * large reads where the text form's printing and parsing of each number
 * cost more than the query.
 */
PGresult *db_query(struct db_conn *c, const struct db_stmt_def *s, int n, const struct db_param *p,
		   int binary, struct err *e) __attribute__((warn_unused_result));
/*
 * The small reads: each runs s as db_query() (same parameters and errors)
 * and clears the result, so the caller never sees a PGresult.
 *
 * db_query_do(): for its effect (an INSERT, an UPDATE): 0, or -1 with e.
 */
int db_query_do(struct db_conn *c, const struct db_stmt_def *s, int n, const struct db_param *p,
		struct err *e) __attribute__((warn_unused_result));
/* The number of rows s returned (an UPDATE ... RETURNING: rows changed), or -1 with e. */
long long db_query_rows(struct db_conn *c, const struct db_stmt_def *s, int n,
			const struct db_param *p, struct err *e)
	__attribute__((warn_unused_result));
/*
 * *v = the first column of the first row as an integer (int8, or any
 * integer type printed in decimal): 0, or -1 with e; ERR_NOT_FOUND (404,
 * detail "id", message "nothing found") when there is no row or the value
 * is NULL.
 */
int db_query_int8(struct db_conn *c, const struct db_stmt_def *s, int n, const struct db_param *p,
		  long long *v, struct err *e) __attribute__((warn_unused_result));
/* db_query() of s with one parameter, the int8 id. */
PGresult *db_query_id(struct db_conn *c, const struct db_stmt_def *s, long long id, struct err *e)
	__attribute__((warn_unused_result));
/*
 * The first column of the first row as an id: 1 and *id, 0 (*id 0) when
 * there is no row, -1 with e.
 */
int db_query_first_id(struct db_conn *c, const struct db_stmt_def *s, int n,
		      const struct db_param *p, long long *id, struct err *e)
	__attribute__((warn_unused_result));
/*
 * *text = the first column of the first row, as PostgreSQL's json
 * functions wrote it: a new NUL-terminated string the caller free()s; 0,
 * or -1 with e. ERR_NOT_FOUND (404, detail "id", message "nothing found")
 * when there is no row or the value is NULL; the caller may replace the
 * message.
 */
int db_query_json(struct db_conn *c, const struct db_stmt_def *s, int n, const struct db_param *p,
		  char **text, struct err *e) __attribute__((warn_unused_result));
/*
 * db_query_json() of a list read: $1 state (text; NULL: any), $2 limit
 * (decimal text; s casts it), the same results.
 */
int db_query_json_list(struct db_conn *c, const struct db_stmt_def *s, const char *state,
		       const char *limit, char **text, struct err *e)
	__attribute__((warn_unused_result));
/*
 * db_query_json() of s, whose one parameter, id, is bound as int8 (the
 * SQL casts it: $1::bigint), answered as the by-id reads are: 1 and *text
 * (new), 0 when there is no row, -1 with e.
 */
int db_query_json_by_id(struct db_conn *c, const struct db_stmt_def *s, long long id, char **text,
			struct err *e) __attribute__((warn_unused_result));
/*
 * db_query_json()'s answer from a result already run: takes r (clears
 * it), fills *text (caller free()s) or gives ERR_NOT_FOUND the same way.
 */
int db_result_json_text(PGresult *r, char **text, struct err *e)
	__attribute__((warn_unused_result));

/* Ad-hoc SQL that is not worth preparing (transaction control), as db_query()'s errors. */
int db_cmd(struct db_conn *c, const char *sql, struct err *e) __attribute__((warn_unused_result));
/*
 * Runs `sql`, a COPY ... FROM STDIN, and sends it `len` bytes of `data`
 * (COPY text format, borrowed). Returns the number of rows stored, or -1
 * with e filled like db_query().
 */
long long db_copy_in(struct db_conn *c, const char *sql, const char *data, size_t len,
		     struct err *e) __attribute__((warn_unused_result));

#endif

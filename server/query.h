#ifndef REGTRACK_SERVER_QUERY_H
#define REGTRACK_SERVER_QUERY_H

#include "server/http.h"

/*
 * Filters shared by the read endpoints: testcase, tbox_group, kconfig,
 * compiler, params (a JSON object, canonicalized to the stored params_key)
 * and mode. Strings are borrowed from the request (or its arena).
 */
struct setup_filter {
	const char *testcase, *tbox_group, *kconfig, *compiler, *params_key, *mode;
};

/*
 * Reads the filters from rq's query string. Errors (-1, e filled, 400
 * "invalid_field" naming the argument): params not a JSON object, mode not
 * wallclock|icount.
 */
int setup_filter_from_query(struct request *rq, struct setup_filter *f, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Resolves a commit given as a full sha or a prefix of at least 7 hex
 * digits. Fills id (commits.id text), sha and subject (arena copies;
 * subject may be NULL). Errors: 400 "invalid_field" (not hex, too short,
 * ambiguous), 404 "not_found", 503 db.
 */
int commit_resolve(struct request *rq, PGconn *c, const char *arg, const char *field,
		   const char **id, const char **sha, const char **subject, struct err *e)
	__attribute__((warn_unused_result));

/*
 * The ?state=&limit= arguments of a list endpoint. state must be one of
 * the NULL-terminated `states` (or absent: *state = NULL); limit is an
 * integer in [1, max_limit], default def_limit, written as text to limit.
 * Errors: 400 "invalid_field" naming the argument and listing the states.
 */
int list_args(struct request *rq, const char *const *states, long def_limit, long max_limit,
	      const char **state, char limit[24], struct err *e) __attribute__((warn_unused_result));

/*
 * The numeric id in the path (/api/v1/jobs/{id}): a positive integer,
 * also written as text to text[24]. Errors: 400 "invalid_field" (detail
 * "id") saying "'X' is not a WHAT id".
 */
int rq_path_id(struct request *rq, const char *what, long long *id, char text[24], struct err *e)
	__attribute__((warn_unused_result));

/*
 * A list endpoint in one call: list_args() for ?state=&limit=, then
 * statement st with params (state, limit), answered as reply_pg_json().
 */
enum MHD_Result reply_list(struct request *rq, const char *const *states, long def_limit,
			   long max_limit, enum db_stmt st);

/*
 * GET of one resource by the numeric id in its path: rq_path_id(), then
 * statement st with the id as its one parameter, answered as
 * reply_pg_json() (404 "no WHAT ID" when there is no row).
 */
enum MHD_Result reply_by_id(struct request *rq, const char *what, enum db_stmt st);

/*
 * Fields of a JSON request body. json_str_field: *out borrowed from o, NULL
 * when absent or null; errors 400 "missing_field" (required and absent) or
 * "invalid_field" (not a string, longer than max bytes), detail = key.
 * json_int_field: *out = def when absent; 400 "invalid_field" unless an
 * integer in [min, max].
 */
int json_str_field(json_t *o, const char *key, int required, size_t max, const char **out,
		   struct err *e) __attribute__((warn_unused_result));
int json_int_field(json_t *o, const char *key, long long def, long long min, long long max,
		   long long *out, struct err *e) __attribute__((warn_unused_result));

/* The setup row as JSON {id, testcase, params, kconfig, compiler, tbox_group, mode}; new ref or NULL. */
json_t *setup_json(PGconn *c, long long setup_id, struct err *e);

/*
 * A float8[] column in PostgreSQL's text form ("{1.5,2,3e-05}"; "" for
 * SQL NULL, "{}" empty). pg_float8_array_len: the number of elements (an
 * upper bound for pg_float8_array_sorted's count). pg_float8_array_sorted:
 * parses the elements into out[] (room for pg_float8_array_len() doubles),
 * stops at the first one that is not a number, sorts them ascending with
 * NaN last (so sums over them do not depend on a plan's row order) and
 * returns the count.
 */
size_t pg_float8_array_len(const char *s);
size_t pg_float8_array_sorted(const char *s, double *out);

/* v[0..n) sorted ascending, NaN last (pg_float8_array_sorted's order). */
void pg_sort_doubles(double *v, size_t n);

/*
 * Values of a binary-format result (db_exec_binary()), PostgreSQL's send
 * functions' layout (network byte order). pg_bin_int8 / pg_bin_int4: the
 * int8 / int4 at p (8 / 4 bytes).
 *
 * A one-dimensional array as array_send() writes it (int32 ndim, int32
 * has-NULLs flag, element type OID, per dimension int32 length and lower
 * bound, then per element int32 byte length and the bytes): pg_bin_array_len
 * returns its element count (0 for an empty array), or -1 when p[0..len)
 * is not a one-dimensional array of elem_oid (23 int4, 701 float8) or holds
 * a NULL. pg_bin_array_int4 / pg_bin_array_float8 then write those elements
 * to out[] (room for that count) and return 0, or -1 when malformed (an
 * element's length not 4 / 8, the data shorter than its elements).
 */
long long pg_bin_int8(const char *p);
int pg_bin_int4(const char *p);
long pg_bin_array_len(const char *p, size_t len, unsigned elem_oid);
int pg_bin_array_int4(const char *p, size_t len, int *out);
int pg_bin_array_float8(const char *p, size_t len, double *out);

/*
 * Whether the row statement st (one $1 id parameter, e.g. ST_JOB_EXISTS)
 * finds exists: 1, 0, or -1 with e (db_exec()'s errors). For the refusals
 * that must tell "no such id" (404) from "not in a state for this" (409).
 */
int db_row_exists(PGconn *c, enum db_stmt st, const char *id, struct err *e);

#endif

#ifndef REGTRACK_SERVER_DB_PGVAL_H
#define REGTRACK_SERVER_DB_PGVAL_H

#include <stddef.h>

/*
 * Readers of the values libpq hands back, in PostgreSQL's text and binary
 * forms. Only the db layer (server/db/) reads result columns; it uses these
 * to fill the typed rows the rest of the server sees. Pure functions: no
 * allocation, no libpq calls.
 */

/* A float8 or bigint in text form; NAN for SQL NULL (libpq's empty string). */
double pg_double(const char *s);

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
 * Values of a binary-format result (db_query() with binary 1), PostgreSQL's send
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

#endif

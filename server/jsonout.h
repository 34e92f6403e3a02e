#ifndef REGTRACK_SERVER_JSONOUT_H
#define REGTRACK_SERVER_JSONOUT_H

/*
 * JSON written straight into a struct buf, for the large answers (compare,
 * series) where a jansson tree of every value cost more than the query:
 * one allocation per number and a second pass to dump. reply_json()
 * writes its jansson trees through jsonout_json() too, so the two kinds of
 * handler agree byte for byte.
 *
 * Every function appends to b and returns 0, or -1 when b is full (its
 * cap; an uncapped buf never fails). Nothing is owned or kept.
 *
 * Numbers: reals are written as the shortest text that reads back as the
 * same double (lib/dtoa.h: 0.1, not %.17g's 0.10000000000000001), here and
 * in every reply_json(). Strings and objects as jansson writes them
 * (its escapes, insertion order).
 */
#include "buf.h"

#include <jansson.h>

/* s (UTF-8, NUL-terminated) as a JSON string: ", \ and control bytes escaped. */
int jsonout_str(struct buf *b, const char *s) __attribute__((warn_unused_result));

/* s[0..n) as a JSON string (NUL bytes as \u0000), as jsonout_str(). */
int jsonout_strn(struct buf *b, const char *s, size_t n) __attribute__((warn_unused_result));

/* s as a JSON string, or null when s is NULL. */
int jsonout_str_or_null(struct buf *b, const char *s) __attribute__((warn_unused_result));

/*
 * v as its shortest round-trip text (lib/dtoa.h): ".0" added to integral
 * values in decimal notation so that it reads as a real, exponent without
 * '+' or leading zeros ("1e-5", "1.5e20"); null when v is NaN or infinite
 * (as json_num() does for jansson).
 */
int jsonout_real(struct buf *b, double v) __attribute__((warn_unused_result));

/*
 * Writers into a caller's char array, for text put together on the stack
 * and appended once (api/compare.c's rows: per-piece appends cost more than
 * the numbers). Each writes at p and returns the end of what it wrote
 * (no NUL). Room needed at p: DTOA_BUFSZ (lib/dtoa.h) for a real, 20 bytes
 * for an integer. jsonout_put_real() writes what jsonout_real() appends,
 * the integers what printf's %llu / %lld write.
 */
char *jsonout_put_real(char *p, double v);
char *jsonout_put_uint(char *p, unsigned long long v);
char *jsonout_put_int(char *p, long long v);
/* v as a jansson real, or null for NaN and infinities. New reference. */
json_t *json_num(double v);

/*
 * A float8 as PostgreSQL's text output printed it (its shortest exact form)
 * as a JSON number: ".0" added to integral values, so that it reads as a
 * real like jsonout_real(); null for NaN, infinities and for isnull.
 */
int jsonout_pg_float(struct buf *b, const char *s, int isnull) __attribute__((warn_unused_result));

/*
 * j written compactly, as json_dumps(JSON_COMPACT | JSON_ENCODE_ANY) would
 * but with jsonout_real()'s numbers; -1 also when j is NULL. Strings are
 * written as jansson holds them (json_string() accepted only UTF-8).
 */
int jsonout_json(struct buf *b, const json_t *j) __attribute__((warn_unused_result));

#endif

#ifndef REGTRACK_SERVER_JSONOUT_H
#define REGTRACK_SERVER_JSONOUT_H

/*
 * JSON written straight into a struct buf, for the large answers (compare,
 * series) where a jansson tree of every value cost more than the query:
 * one allocation per number and a second pass to dump. The output is what
 * reply_json() would write for the same values (jansson's formats), so the
 * two kinds of handler agree byte for byte.
 *
 * Every function appends to b and returns 0, or -1 when b is full (its
 * cap; an uncapped buf never fails). Nothing is owned or kept.
 */
#include "buf.h"

#include <jansson.h>

/* s (UTF-8, NUL-terminated) as a JSON string: ", \ and control bytes escaped. */
int jsonout_str(struct buf *b, const char *s) __attribute__((warn_unused_result));

/* s as a JSON string, or null when s is NULL. */
int jsonout_str_or_null(struct buf *b, const char *s) __attribute__((warn_unused_result));

/*
 * v as jansson writes a real with JSON_REAL_PRECISION(17): "%.17g", ".0"
 * added when that has neither '.' nor 'e', exponent without '+' or leading
 * zeros; null when v is NaN or infinite (as json_num() in api.h).
 */
int jsonout_real(struct buf *b, double v) __attribute__((warn_unused_result));

/*
 * A float8 as PostgreSQL's text output printed it (its shortest exact form)
 * as a JSON number: ".0" added to integral values, so that it reads as a
 * real like jsonout_real(); null for NaN, infinities and for isnull.
 */
int jsonout_pg_float(struct buf *b, const char *s, int isnull) __attribute__((warn_unused_result));

/* j dumped compactly (reply_json()'s flags); -1 also when j is NULL. */
int jsonout_json(struct buf *b, const json_t *j) __attribute__((warn_unused_result));

#endif

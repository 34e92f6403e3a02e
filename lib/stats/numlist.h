#ifndef REGTRACK_STATS_NUMLIST_H
#define REGTRACK_STATS_NUMLIST_H

#include <stddef.h>

#include "err.h"

/*
 * The bound the API puts on every number (server/http/http_body.c), 2^63:
 * past it the statistics square values beyond a double (1e155 squared) and
 * GSL aborts. Every offline reader of numbers refuses a value beyond it.
 */
#define NUMLIST_MAX_ABS 9223372036854775808.0

/*
 * Sample files for `regtrack compare-samples` and `regtrack detect`:
 * either one number per line (blank lines and `#` comments allowed, also
 * after a number), or, after any leading `#` comment lines, a JSON array
 * of numbers. Text is borrowed for the call.
 *
 * On success returns 0 and sets *out (new, caller frees with free()) and
 * *n (may be 0). On failure returns -1, *out NULL, and fills e with
 * ERR_INVALID_FIELD (a value that is not a number, or one beyond +-2^63 as
 * the API refuses it: the message names the line, e.g. "line 3: 'abc' is
 * not a number", or the array element) or
 * ERR_INVALID_JSON (the message names the JSON error).
 */
int numlist_parse(const char *text, size_t len, double **out, size_t *n, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Reads a whole file of at most max_bytes into a new NUL-terminated string
 * (caller frees with free()), less a leading UTF-8 byte order mark and
 * with each lone CR (old Mac line ends) made a LF; *len gets its length. Returns -1 with e
 * filled (ERR_NOT_FOUND when it cannot be opened, ERR_TOO_LARGE past the
 * cap, ERR_IO on a read error).
 */
int numlist_read_file(const char *path, size_t max_bytes, char **text, size_t *len, struct err *e)
	__attribute__((warn_unused_result));

/*
 * numlist_read_file() and numlist_parse() of the file at path: a sample
 * file, or a stored series (the .txt files of tests/fixtures/series: `#`
 * lines, then one number a line). On success returns 0 with *out (new,
 * caller frees with free(); never NULL) and *n (may be 0). On failure
 * returns -1, *out NULL and *n 0, with e as those two fill it
 * (numlist_read_file's messages name the path, numlist_parse's the line
 * of a value that is not a number but not the path: callers add it).
 */
int numlist_load(const char *path, size_t max_bytes, double **out, size_t *n, struct err *e)
	__attribute__((warn_unused_result));

/* The index of the first byte after leading blank and `#` comment lines. */
size_t numlist_skip_comments(const char *text, size_t len);

#endif

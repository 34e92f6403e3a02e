#ifndef REGTRACK_SERVER_HTTP_BODY_H
#define REGTRACK_SERVER_HTTP_BODY_H

#include <jansson.h>
#include <stddef.h>

#include "err.h"

/*
 * What a request brings: its body, read up to cfg->body_limit (413 past
 * it), as one JSON object, and its query arguments.
 */
struct request;

/*
 * Starts rq's body: the buffer capped at the limit. A Content-Length past
 * the cap is refused on the headers (the server's preflight); a chunked
 * body past it is read and dropped by body_add, so a client that sends
 * everything before it reads still gets its 413.
 */
void body_start(struct request *rq);
/* Appends n bytes of upload data; past the cap sets too_large and drops what was read. */
void body_add(struct request *rq, const char *data, size_t n);
/* Frees the body (request completed). */
void body_release(struct request *rq);

/* Query argument, or NULL when absent or empty. Borrowed until the request ends. */
const char *rq_arg(struct request *rq, const char *name);

/*
 * Whether every text of the URL (the path, each query argument's name and
 * value) is UTF-8 without NUL bytes: 1 when so, else 0 with *bad the name
 * of the first argument that is not (borrowed), NULL when it is the path.
 */
int rq_text_ok(struct request *rq, const char **bad);

/*
 * 0 when every query argument of rq is one of names (NULL-terminated,
 * borrowed; none when names[0] is NULL), each at most once (a second value
 * would be silently dropped: rq_arg() reads the first), else -1 with e:
 * ERR_INVALID_FIELD naming the first unknown argument (the message lists
 * names) or the first one given twice.
 */
int rq_args_only(struct request *rq, const char *const *names, struct err *e)
	__attribute__((warn_unused_result));

/* Most JSON values a body may hold (a result document's 2,000,000 values and room). */
#define RQ_JSON_MAX_VALUES 2500000

/*
 * Parses the request body as one JSON object (ERR_TOO_LARGE, before
 * parsing, past RQ_JSON_MAX_VALUES values). Returns a new reference
 * (caller json_decref()s) or NULL with e filled: ERR_INVALID_JSON (400)
 * with the line/column in detail, or ERR_INVALID_FIELD (400) when it is
 * not an object or holds a real number outside +-2^63 (jsonb would give
 * it back as an integer jansson cannot read) or an integer outside int64,
 * with the number's JSON path in detail ("metrics.m[2]", "machine.nr_cpus").
 */
json_t *rq_json(struct request *rq, struct err *e);

/* Length of the UTF-8 sequence at s[0..n) as jansson accepts it, or 0 when s does not start with one. */
size_t utf8_seq(const unsigned char *s, size_t n);
/* 1 when s[0..n) is UTF-8 without NUL bytes. */
int utf8_ok(const char *s, size_t n);

#endif

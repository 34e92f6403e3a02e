#ifndef REGTRACK_SERVER_HTTP_H
#define REGTRACK_SERVER_HTTP_H

#include <jansson.h>
#include <microhttpd.h>
#include <stdatomic.h>

#include "arena.h"
#include "buf.h"
#include "err.h"
#include "server/config.h"
#include "server/db/db.h"
#include "server/server.h"

/*
 * The HTTP side of regtrack-server: libmicrohttpd with an internal thread
 * pool, one route table (routes.c), a per-request arena, a body cap (413
 * past it), token auth per route, and one error path: every error reply is
 * {"error": {"code", "message", "detail"}} from reply_err().
 */

/* token scopes, as bits; a route lists the scopes it accepts */
enum scope {
	SCOPE_READ = 1,
	SCOPE_SUBMIT = 2,
	SCOPE_WORKER = 4,
	SCOPE_ADMIN = 8,
};
#define AUTH_NONE 0                                 /* anyone */
#define AUTH_READ (SCOPE_READ | SCOPE_SUBMIT | SCOPE_WORKER | SCOPE_ADMIN) /* open if public_read */
#define AUTH_SUBMIT (SCOPE_SUBMIT | SCOPE_WORKER | SCOPE_ADMIN)
#define AUTH_JOBS (SCOPE_SUBMIT | SCOPE_ADMIN)
#define AUTH_WORKER (SCOPE_WORKER | SCOPE_ADMIN)
#define AUTH_ADMIN SCOPE_ADMIN

#define MAX_PATH_PARAMS 4

struct request {
	struct server *srv;
	struct MHD_Connection *conn;
	struct arena *arena;          /* freed when the request completes */
	const char *method, *url;
	struct buf body;              /* capped at cfg->body_limit */
	int too_large;
	int scope;                    /* the caller's scope bit, 0 when no token */
	long long token_id;
	const char *path_params[MAX_PATH_PARAMS];
	int nr_path_params;
	struct timespec start;
	int status;                   /* status replied, for the access log */
	/* a handler that suspended the connection leaves its answer here */
	int resumed;
	unsigned deferred_status;
	json_t *deferred;             /* owned; NULL with status 204 */
	const struct route *route;    /* the matched route; a resumed request goes straight back to it */
};

typedef enum MHD_Result (*handler_fn)(struct request *rq);

struct route {
	const char *method;
	const char *pattern;          /* "/api/v1/runs/{}": {} matches one path segment */
	handler_fn fn;
	int auth;                     /* AUTH_* mask of accepted scopes */
};
extern const struct route routes[];
extern const unsigned nr_routes;

/* Starts the daemon on cfg->listen; fills srv->port. -1 with e on failure. */
int http_start(struct server *srv, struct err *e) __attribute__((warn_unused_result));
/* Stops accepting, lets requests in flight finish, stops the threads. */
void http_stop(struct server *srv);

/* Replies. Each queues the response and returns MHD_YES/MHD_NO for the handler to return. */
/* body: stolen reference (json_decref'd here) */
enum MHD_Result reply_json(struct request *rq, unsigned status, json_t *body);
/* The one error path: {"error": {"code", "message", "detail"}} with e->status. */
enum MHD_Result reply_err(struct request *rq, const struct err *e);
/* Shorthand: fills a local err and replies with it. */
enum MHD_Result reply_errf(struct request *rq, int status, const char *code, const char *detail,
			   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* data: copied */
enum MHD_Result reply_text(struct request *rq, unsigned status, const char *content_type,
			   const char *data, size_t len);
/*
 * reply_text() of b's bytes without the copy: takes b's memory (b is left
 * empty, as after buf_release()), freed when the response is sent. For the
 * large replies (a 10^5-point series is 8 MB: the copy was 7% of its CPU).
 */
enum MHD_Result reply_text_buf(struct request *rq, unsigned status, const char *content_type,
			       struct buf *b);
enum MHD_Result reply_empty(struct request *rq, unsigned status);

/*
 * Replies 200 with the JSON text in the first column of r's first row (as
 * PostgreSQL's json functions built it), written compactly again by
 * jsonout_json() like every reply (passed through as it is when jansson
 * cannot read it).
 * Takes r (clears it). A row-less result gives 404 "not_found" naming
 * `what`, e.g. "no job 7".
 */
enum MHD_Result reply_pg_json(struct request *rq, PGresult *r, const char *what);
/* Runs statement st with n params and replies as reply_pg_json(). */
enum MHD_Result reply_db_json(struct request *rq, enum db_stmt st, int n, const char *const *p);

/*
 * Runs fn(rq) on one of the server's pool threads (cfg->threads of them,
 * each with its own database connection via rq_db) while the connection is
 * suspended, so a slow handler never holds a libmicrohttpd thread: that
 * thread serves its other connections meanwhile. libmicrohttpd keeps each
 * connection on the thread that accepted it, and two clients on one
 * thread would otherwise wait for each other while other cores idle.
 * fn must not reply: it leaves the reply in rq->deferred (owned JSON, may
 * be NULL) and rq->deferred_status; then rq->resumed is set, the
 * connection resumed and the route's handler called again, which replies
 * with them. Returns 0 when queued (the handler returns MHD_YES at once),
 * -1 when the pool is stopping or absent: the caller runs fn inline.
 */
int http_defer(struct request *rq, void (*fn)(struct request *rq));

/* The body of reply_err(): {"error": {"code", "message", "detail"}}, any byte
 * of e's texts that is not UTF-8 as '?'. New reference. */
json_t *err_json(const struct err *e);

/* Query argument, or NULL when absent or empty. Borrowed until the request ends. */
const char *rq_arg(struct request *rq, const char *name);

/*
 * Parses the request body as one JSON object. Returns a new reference
 * (caller json_decref()s) or NULL with e filled: 400 "invalid_json" with
 * the line/column in detail, or 400 "invalid_field" when it is not an object
 * or holds a real number outside +-2^63 (jsonb would give it back as an
 * integer jansson cannot read) or an integer outside int64, with the
 * number's JSON path in detail ("metrics.m[2]", "machine.nr_cpus").
 */
json_t *rq_json(struct request *rq, struct err *e);

/* The calling thread's database connection, or NULL with e (503). */
PGconn *rq_db(struct request *rq, struct err *e);

#endif

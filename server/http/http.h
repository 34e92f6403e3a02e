#ifndef REGTRACK_SERVER_HTTP_H
#define REGTRACK_SERVER_HTTP_H

#include <stdatomic.h>

#include "arena.h"
#include "buf.h"
#include "err.h"
#include "server/http/auth.h"
#include "server/config.h"
#include "server/db/db.h"
#include "server/http/http_body.h"
#include "server/http/http_reply.h"
#include "server/http/request.h"
#include "server/server.h"

/*
 * The HTTP side of regtrack-server: libmicrohttpd with an internal thread
 * pool, one route table (given to http_start(): api/routes.c's), a per-request arena, a body cap
 * (413 past it), token auth per route (auth.h), and one error path: every
 * error reply is {"error": {"code", "message", "detail"}} from reply_err().
 * Handlers include this header for all of it: struct request
 * (request.h), the replies (http_reply.h), the body and arguments
 * (http_body.h) and the scopes (auth.h).
 */

/*
 * Starts the daemon on cfg->listen, dispatching to the nr routes of
 * `routes` (borrowed: a static table that outlives the daemon); fills
 * srv->port. -1 with e on failure (ERR_CONFIG for a malformed listen
 * address, ERR_IO when it cannot listen).
 */
int http_start(struct server *srv, const struct route *routes, unsigned nr, struct err *e)
	__attribute__((warn_unused_result));
/* Stops accepting new connections; those open are served on. */
void http_quiesce(struct server *srv);
/* Stops accepting, lets requests in flight finish, stops the threads. */
void http_stop(struct server *srv);

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

/*
 * Long-poll parking: http_park() suspends rq's connection, and the
 * handler returns MHD_YES at once; later http_unpark(rq, reply), from any
 * thread and exactly once, leaves reply (owned JSON; NULL for none) in
 * rq->deferred with deferred_status 200 (204 for none), sets rq->resumed
 * and resumes the connection: the route's handler is called again and
 * replies with them. rq is a void pointer so that a domain queue can hold
 * it as a callback's context (lease_queue_park(), lease.h). Whoever holds
 * rq between the two must answer it before the server stops.
 */
void http_park(struct request *rq);
void http_unpark(void *rq, json_t *reply);

#endif

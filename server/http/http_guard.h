#ifndef REGTRACK_SERVER_HTTP_GUARD_H
#define REGTRACK_SERVER_HTTP_GUARD_H

#include <microhttpd.h>

#include "err.h"

/*
 * Deadlines libmicrohttpd's idle timeout does not give, and the count of
 * open connections. A client that sends one header line every 30 s is
 * never idle for the 120 s timeout; here its request's headers must be
 * complete within header_timeout_s of the connection's start (or of the
 * end of its previous request, keep-alive), and its body within
 * body_timeout_s of the headers. A connection past its deadline is shut
 * down (shutdown(2) of its socket: libmicrohttpd then reads the end and
 * closes it) by a thread that looks twice a second. A request in its
 * handler (deferred work, a parked long poll) has no deadline.
 *
 * The guard learns of connections through libmicrohttpd's
 * MHD_OPTION_NOTIFY_CONNECTION (http_guard_notify), which runs before the
 * socket is closed, under the guard's lock: a shut-down descriptor is
 * never one reused by another connection.
 */
struct http_guard;

/* Starts the guard's thread; new handle or NULL with e (ERR_INTERNAL). */
struct http_guard *http_guard_start(long header_timeout_s, long body_timeout_s, struct err *e);
/* Stops the thread and frees g (after the daemon stopped). NULL is a no-op. */
void http_guard_stop(struct http_guard *g);

/* MHD_NotifyConnectionCallback; cls is the guard. */
void http_guard_notify(void *cls, struct MHD_Connection *c, void **socket_context,
		       enum MHD_ConnectionNotificationCode toe);

/* The request on c has its headers: its body is due within body_timeout_s. */
void http_guard_body(struct MHD_Connection *c);
/* The request on c is in its handler: no deadline until it completes. */
void http_guard_handler(struct MHD_Connection *c);
/* The request on c completed: the next one's headers are due within header_timeout_s. */
void http_guard_idle(struct MHD_Connection *c);
/* 1 when the body of the request on c is past its deadline, else 0. */
int http_guard_late(struct MHD_Connection *c);

/* Connections open now (accepted and not yet closed). */
unsigned long http_guard_count(const struct http_guard *g);
/* Connections shut down past a deadline since start. */
unsigned long http_guard_reaped(const struct http_guard *g);

#endif

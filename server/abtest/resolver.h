#ifndef REGTRACK_SERVER_RESOLVER_H
#define REGTRACK_SERVER_RESOLVER_H

/*
 * The A/B requests' ref resolution, off the HTTP threads. POST
 * /api/v1/requests stores a request in state "resolving" (202) once what
 * needs no git is checked; resolve_threads background threads (bgthread.h)
 * take those requests oldest first and call srv->resolve_request (set by
 * main.c to api/requests.c's), which resolves base and head in the tree's
 * mirror (each git command bounded by resolve_timeout_s) and queues the
 * jobs.
 *
 *  - one request of a tree at a time (a per-tree claim, beside the mirror's
 *    per-tree lock): an upstream that stalls holds one thread, never all of
 *    them, and the requests of other trees go on;
 *  - a request that cannot be resolved fails with a reason a person can
 *    read (fail_reason on the request page and API): the ref that is not
 *    a commit of the tree, or the fetch that failed or timed out. A fetch
 *    that failed fails every request of that tree waiting behind it (each
 *    would wait for the same stall again);
 *  - when the database is unreachable the request stays resolving and is
 *    tried again; a restarted server takes up the requests left resolving.
 */
struct server;
struct resolver;

/* Starts the threads; NULL (logged) when none can start. */
struct resolver *resolver_start(struct server *srv);
/* A request was stored: look for work now. NULL is a no-op. */
void resolver_kick(struct resolver *r);
/* Stops the threads after the requests in hand; kicks are ignored from then on. */
void resolver_halt(struct resolver *r);
/* resolver_halt() and frees r; call once no handler can kick it. NULL is a no-op. */
void resolver_stop(struct resolver *r);

#endif

#ifndef REGTRACK_SERVER_SERVER_H
#define REGTRACK_SERVER_SERVER_H

#include <jansson.h>
#include <stdatomic.h>

#include "err.h"

struct db_conn;

/*
 * The running server: its configuration, its store, the HTTP daemon and
 * the handles of its background threads (the lease reaper, change
 * detection, the bisect coordinator, the mailer). main.c fills it, starts
 * the threads and stops them in reverse order; every module reads what it
 * needs from it and nothing else is global.
 */
struct config;
struct db;
struct MHD_Daemon;
struct mailer;

struct lease_queue;
struct http_pool;
struct http_guard;
struct route;
struct detect_thread;
struct bisect_coord;
struct poller;
struct inbox_poller;
struct replica;
struct retention;
struct reply_cache;

struct server {
	struct config *cfg;	      /* borrowed */
	struct lease_queue *leases;   /* long-poll waiters and the lease reaper (lease.h) */
	struct mailer *mailer;	      /* outbox sender (mailer.h); NULL when mail is off */
	struct detect_thread *detect; /* change detection (detect.h); NULL when off */
	struct bisect_coord *bisects; /* bisect coordinator (bisect.h) */
	struct poller *poller;	      /* tree poller and scheduler (poller.h) */
	struct inbox_poller *inboxes; /* inbox poller (inbox_poll.h) */
	struct resolver *resolver;    /* A/B requests' refs, resolved off the HTTP threads */
	struct db *db;
	struct replica *replica;     /* the read replica (replica.h); NULL when none */
	struct retention *retention; /* partitions and retention (retention.h) */
	struct MHD_Daemon *daemon;
	const struct route *routes; /* the HTTP route table (http_start()); borrowed */
	unsigned nr_routes;
	/* per route, the query arguments it takes (server/api/route_args.h; NULL
	 * entry: not described, not checked); owned by main.c */
	const char *const **route_args;
	struct http_pool *pool;		/* threads of deferred handlers (http_defer), http.c */
	struct http_guard *guard;	/* header/body deadlines, open connections (http_guard.h) */
	unsigned long soft_connections; /* past it a request gets 503 (http.c) */
	unsigned short port;
	char web_dir[4096];
	atomic_ulong requests[6]; /* by status class: [2]=2xx … [5]=5xx */
	atomic_ulong in_flight;
	atomic_long profile_diffs;	/* profile diffs being computed (api/profiles.c) */
	struct reply_cache *diff_cache; /* profile diff replies (replycache.h); NULL: none kept */
	atomic_ulong values_ingested;
	atomic_ulong
		trees_gen; /* bumped when trees or commits change: GET /api/v1/trees's cached reply is stale */
	long started; /* time(NULL) at start */
	/*
	 * Stores an A/B request from a submission body (POST /api/v1/requests's
	 * fields; borrowed) as its handler does, for the server's own callers
	 * (inbox series): state "resolving", its refs resolved and its jobs queued
	 * by the resolver (resolver.h) in the background. The request's id, or -1
	 * with e (the 4xx the API would give). main.c sets it to api/requests.c's;
	 * NULL: none.
	 */
	long long (*submit_request)(struct server *srv, struct db_conn *c, json_t *body,
				    struct err *e);
	/*
	 * Resolves the refs of request id, stored in state "resolving" by POST
	 * /api/v1/requests, and queues its jobs (resolver.h): 0 when done (or
	 * when it is no longer resolving), -1 with e when it cannot be (e's
	 * message says why, for its fail_reason; 503: the database, try again).
	 * main.c sets it to api/requests.c's.
	 */
	int (*resolve_request)(struct server *srv, struct db_conn *c, long long id, struct err *e);
};

#endif

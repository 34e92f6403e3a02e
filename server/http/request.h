#ifndef REGTRACK_SERVER_REQUEST_H
#define REGTRACK_SERVER_REQUEST_H

#include <jansson.h>
#include <microhttpd.h>
#include <time.h>

#include "arena.h"
#include "buf.h"
#include "err.h"
#include "server/db/db.h"
#include "server/replica.h"
#include "server/server.h"

/*
 * One HTTP request as the handlers see it, and a route of the table.
 * Apart from http.h so that the reply and body modules (http_reply.h,
 * http_body.h), which http.h includes for the handlers, can read it
 * without including http.h back.
 */

#define MAX_PATH_PARAMS 4

struct request {
	struct server *srv;
	struct MHD_Connection *conn;
	struct arena *arena; /* freed when the request completes */
	const char *method, *url;
	struct buf body; /* capped at cfg->body_limit */
	int too_large;
	int scope; /* the caller's scope bit, 0 when no token */
	long long token_id;
	const char *path_params[MAX_PATH_PARAMS];
	int nr_path_params;
	int64_t start_ns;     /* mono_ns() when the headers arrived */
	int status;	      /* status replied, for the access log */
	long long bytes;      /* bytes of the reply's body, for the access log */
	char token_name[129]; /* the caller's token's name ("": none), for the access log */
	int close;	      /* 1 = "Connection: close" on the reply (refused on its headers) */
	int db_pick; /* rq_db()'s choice for a ROUTE_REPLICA route (replica_conn()'s *pick) */
	/* a handler that suspended the connection leaves its answer here */
	int resumed;
	int heavy; /* 1: the deferred handler allocated much (a profile diff): see http.c */
	unsigned deferred_status;
	json_t *deferred; /* owned; NULL with status 204 */
	/* or the reply as JSON text already (owned, malloc'd; NULL: none), as kept in a reply
	 * cache, with "X-Regtrack-Cache: " deferred_cache ("hit" or "miss", static) */
	char *deferred_text;
	size_t deferred_text_len;
	const char *deferred_cache;
	const struct route
		*route; /* the matched route; a resumed request goes straight back to it */
};

typedef enum MHD_Result (*handler_fn)(struct request *rq);

/*
 * A field of a route's JSON replies that a caller without a token does
 * not get (README "Security: what is public"): `field` is a key of the
 * reply object, or of each object of a reply array; "a.b" is key b of
 * the object under a. `when`: withheld only from the objects where this
 * key is there and not null (NULL: from all). A route's list ends with
 * { NULL }.
 */
struct withheld {
	const char *field;
	const char *when;
};

struct route {
	const char *method;
	const char *pattern; /* "/api/v1/runs/{}": {} matches one path segment */
	handler_fn fn;
	int auth; /* AUTH_* mask of accepted scopes (auth.h) */
	int db;	  /* ROUTE_PRIMARY (0), or ROUTE_REPLICA: reads only, a few seconds' lag is fine */
	const struct withheld *withheld; /* NULL: every field goes to every caller */
};

#define ROUTE_PRIMARY 0
#define ROUTE_REPLICA 1

/*
 * The calling thread's database connection, or NULL with e (503): the
 * primary's, or for a ROUTE_REPLICA route the standby's while it is
 * usable (replica_conn()). One request stays on the side its first call
 * chose, so that its reads see one database.
 */
static inline struct db_conn *rq_db(struct request *rq, struct err *e)
{
	if (!rq->route || rq->route->db != ROUTE_REPLICA)
		return db_conn(rq->srv->db, e);
	return replica_conn(rq->srv->replica, rq->srv->db, &rq->db_pick, e);
}

#endif

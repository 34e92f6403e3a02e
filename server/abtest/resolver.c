/* A/B requests resolved in the background; see resolver.h. */
#include "server/abtest/resolver.h"
#include "server/bgthread.h"
#include "server/config.h"
#include "server/db/db.h"
#include "server/db/requests.h"
#include "server/log.h"
#include "server/server.h"
#include "attr.h"
#include "xalloc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define IDLE_MS 5000  /* another server's requests are found at least this often */
#define RETRY_MS 1000 /* after a database error */

struct resolver;

/* one thread and the tree it holds (0: none) */
struct resolver_slot {
	struct resolver *r;
	struct bgthread *t;
	long long tree_id;
};

struct resolver {
	struct server *srv;
	pthread_mutex_t lock; /* slots[].tree_id and slots[].t */
	struct resolver_slot *slots;
	size_t n;
	atomic_int stopping;
};

static void kick_all(struct resolver *r)
{
	pthread_mutex_lock(&r->lock);
	for (size_t i = 0; i < r->n; i++)
		bgthread_kick(r->slots[i].t);
	pthread_mutex_unlock(&r->lock);
}

/*
 * The oldest request of a tree no other thread holds, claimed for slot:
 * its index in q, with *last the newest request of that tree in q; -1
 * when every waiting tree is held.
 */
static long claim(struct resolver_slot *slot, const struct db_request_resolving *q, long n,
		  long long *last)
{
	struct resolver *r = slot->r;
	long got = -1;

	pthread_mutex_lock(&r->lock);
	for (long i = 0; i < n && got < 0; i++) {
		int held = 0;

		for (size_t k = 0; k < r->n; k++)
			held |= r->slots[k].tree_id == q[i].tree_id;
		if (!held)
			got = i;
	}
	if (got >= 0) {
		slot->tree_id = q[got].tree_id;
		*last = q[got].id;
		for (long i = got; i < n; i++)
			if (q[i].tree_id == q[got].tree_id)
				*last = q[i].id;
	}
	pthread_mutex_unlock(&r->lock);
	return got;
}

/* request q could not be resolved: it fails (a failed fetch: with the tree's others) */
static void fail(struct db_conn *c, const struct db_request_resolving *q, long long last,
		 const struct err *why)
{
	int fetch = why->id == ERR_GIT || why->id == ERR_SPAWN || why->id == ERR_FETCH ||
		    why->id == ERR_BUSY;
	char reason[700];
	struct err e;
	long n;

	if (fetch)
		snprintf(reason, sizeof(reason),
			 "the refs could not be resolved: fetching tree '%s' failed: %s%s%s",
			 q->tree, why->message, why->detail[0] ? ": " : "", why->detail);
	else
		snprintf(reason, sizeof(reason), "%s%s%s", why->detail[0] ? why->detail : "",
			 why->detail[0] ? ": " : "", why->message);
	n = db_request_resolve_failed(c, q->tree_id, q->id, fetch ? last : q->id, reason, &e);
	if (n < 0)
		slog_warn("request %lld: %s; it stays resolving", q->id, e.message);
	else
		slog_info("request %lld%s failed: %s", q->id,
			  n > 1 ? " and its tree's next ones" : "", reason);
}

/* one request resolved or failed (bgthread step); at once again while there is work */
static long resolve_step(void *arg, int *fd UNUSED)
{
	struct resolver_slot *slot = arg;
	struct resolver *r = slot->r;
	struct server *srv = r->srv;
	struct db_request_resolving *q = NULL;
	struct err e;
	struct db_conn *c = db_conn(srv->db, &e);
	long n, i;
	long long last = 0;
	long wait = 0;

	if (!c || atomic_load(&r->stopping))
		return RETRY_MS;
	n = db_requests_resolving(c, &q, &e);
	if (n < 0) {
		slog_warn("resolver: %s", e.message);
		return RETRY_MS;
	}
	i = claim(slot, q, n, &last);
	if (i < 0) {
		free(q);
		return IDLE_MS;
	}
	if (srv->resolve_request(srv, c, q[i].id, &e)) {
		if (e.status == 503) { /* the database, not the request: tried again */
			slog_warn("request %lld: %s; tried again", q[i].id, e.message);
			wait = RETRY_MS;
		} else {
			fail(c, &q[i], last, &e);
		}
	}
	pthread_mutex_lock(&r->lock);
	slot->tree_id = 0;
	pthread_mutex_unlock(&r->lock);
	free(q);
	kick_all(r); /* the tree's next request, for whichever thread is idle */
	return wait;
}

struct resolver *resolver_start(struct server *srv)
{
	struct resolver *r = xcalloc(1, sizeof(*r));
	struct err e;
	size_t want = srv->cfg->resolve_threads > 0 ? (size_t)srv->cfg->resolve_threads : 1;

	r->srv = srv;
	pthread_mutex_init(&r->lock, NULL);
	r->slots = xcalloc(want, sizeof(*r->slots));
	for (size_t i = 0; i < want; i++)
		r->slots[i].r = r;
	/* the threads read r->n under the lock: each one counts once it exists */
	for (size_t i = 0; i < want; i++) {
		struct bgthread *t;

		pthread_mutex_lock(&r->lock);
		r->n = i + 1;
		pthread_mutex_unlock(&r->lock);
		t = bgthread_start("resolver", resolve_step, &r->slots[i], &e);
		pthread_mutex_lock(&r->lock);
		r->slots[i].t = t;
		if (!t)
			r->n = i;
		pthread_mutex_unlock(&r->lock);
		if (!t) {
			slog_error("%s", e.message);
			break;
		}
	}
	if (!r->n) {
		pthread_mutex_destroy(&r->lock);
		free(r->slots);
		free(r);
		return NULL;
	}
	return r;
}

void resolver_kick(struct resolver *r)
{
	if (r && !atomic_load(&r->stopping))
		kick_all(r);
}

void resolver_halt(struct resolver *r)
{
	if (!r)
		return;
	atomic_store(&r->stopping, 1);
	for (size_t i = 0; i < r->n; i++) {
		struct bgthread *t;

		pthread_mutex_lock(&r->lock);
		t = r->slots[i].t;
		r->slots[i].t = NULL;
		pthread_mutex_unlock(&r->lock);
		bgthread_stop(t);
	}
}

void resolver_stop(struct resolver *r)
{
	if (!r)
		return;
	resolver_halt(r);
	pthread_mutex_destroy(&r->lock);
	free(r->slots);
	free(r);
}

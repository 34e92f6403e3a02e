#include "server/lease.h"
#include "xalloc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "banned.h"

struct waiter {
	struct request *rq;
	long long machine_id;
	char request_id[40];      /* "" for none */
	long long deadline_ms;
	struct waiter *next;
};

struct lease_queue {
	struct server *srv;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct waiter *waiters;
	int kicked, stopping;
};

long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

int lease_try(PGconn *c, long long machine_id, const char *request_id, long lease_s, json_t **job,
	      struct err *e)
{
	char mid[24], secs[24], jid[24];
	const char *p[3] = { mid, secs, request_id };
	const char *again[3] = { mid, request_id, secs };
	const char *q[1] = { jid };
	PGresult *r = NULL;

	*job = NULL;
	snprintf(mid, sizeof(mid), "%lld", machine_id);
	snprintf(secs, sizeof(secs), "%ld", lease_s);
	if (request_id) {
		r = db_exec(c, ST_JOB_LEASE_AGAIN, 3, again, e);
		if (!r)
			return -1;
		if (PQntuples(r))
			fprintf(stderr, "regtrack-server: job %s leased again to machine %s "
				"(lease request %s asked again: its reply was lost, or the "
				"worker restarted)\n",
				PQgetvalue(r, 0, 0), mid, request_id);
		else {
			PQclear(r);
			r = NULL;
		}
	}
	if (!r) {
		r = db_exec(c, ST_JOB_LEASE, 3, p, e);
		if (!r)
			return -1;
	}
	if (PQntuples(r) == 0) {
		PQclear(r);
		return 0;
	}
	snprintf(jid, sizeof(jid), "%s", PQgetvalue(r, 0, 0));
	PQclear(r);
	r = db_exec(c, ST_JOB_SPEC, 1, q, e);
	if (!r)
		return -1;
	*job = PQntuples(r) ? json_loads(PQgetvalue(r, 0, 0), 0, NULL) : NULL;
	PQclear(r);
	if (!*job)
		return err_set(e, 500, "db_error", "job", "leased job %s has no spec", jid);
	return 1;
}

int lease_expire(PGconn *c, struct err *e)
{
	PGresult *r = db_exec(c, ST_JOB_EXPIRE, 0, NULL, e);
	int n;

	if (!r)
		return -1;
	n = PQntuples(r);
	for (int i = 0; i < n; i++)
		fprintf(stderr, "regtrack-server: job %s lease expired, now %s\n", PQgetvalue(r, i, 0),
			PQgetvalue(r, i, 1));
	PQclear(r);
	return n;
}

static void finish(struct waiter *w, json_t *job)
{
	w->rq->deferred = job;
	w->rq->deferred_status = job ? 200 : 204;
	w->rq->resumed = 1;
	MHD_resume_connection(w->rq->conn);
	free(w);
}

/*
 * One pass over the parked requests; the lock is not held during db calls.
 * `avail` is how many jobs were queued when the pass began (0: lease
 * none, only answer the expired): the pass stops leasing once that many
 * went out, so one new job costs one or two queries, not one per parked
 * worker (500 parked workers made every job submitted cost 500 queries and
 * delayed deliveries by up to a second: tests/faults "load"). Jobs
 * submitted meanwhile kick another pass.
 */
static void serve_waiters(struct lease_queue *q, PGconn *c, long long avail)
{
	struct waiter *list, *w, *keep = NULL;
	long long now = now_ms();
	struct err e;

	pthread_mutex_lock(&q->lock);
	list = q->waiters;
	q->waiters = NULL;
	pthread_mutex_unlock(&q->lock);

	while ((w = list)) {
		json_t *job = NULL;
		list = w->next;
		if (avail > 0 && c) {
			int got = lease_try(c, w->machine_id, w->request_id[0] ? w->request_id : NULL,
					    q->srv->cfg->lease_timeout_s, &job, &e);

			if (got < 0)
				fprintf(stderr, "regtrack-server: lease: %s\n", e.message);
			else if (got)
				avail--;
		}
		if (job || now >= w->deadline_ms || q->stopping) {
			finish(w, job);
			continue;
		}
		w->next = keep;
		keep = w;
	}
	pthread_mutex_lock(&q->lock);
	/* put back, after any parked meanwhile */
	while ((w = keep)) {
		keep = w->next;
		w->next = q->waiters;
		q->waiters = w;
	}
	pthread_mutex_unlock(&q->lock);
}

static void *lease_thread(void *arg)
{
	struct lease_queue *q = arg;
	long long last_expire = 0, last_full = 0, seen_count = -1, seen_max = -1;
	struct err e;

	for (;;) {
		struct timespec ts;
		PGconn *c;
		int kicked;
		long long avail = 0;

		pthread_mutex_lock(&q->lock);
		if (!q->kicked && !q->stopping) {
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += LEASE_POLL_MS * 1000000L;
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&q->cond, &q->lock, &ts);
		}
		kicked = q->kicked;
		q->kicked = 0;
		if (q->stopping) {
			pthread_mutex_unlock(&q->lock);
			serve_waiters(q, NULL, 0);
			break;
		}
		pthread_mutex_unlock(&q->lock);

		c = db_conn(q->srv->db, &e);
		if (!c) {
			serve_waiters(q, NULL, 0); /* deadlines still apply */
			continue;
		}
		if (now_ms() - last_expire >= 1000) {
			last_expire = now_ms();
			if (lease_expire(c, &e) > 0)
				kicked = 1;
		}
		if (q->waiters) {
			PGresult *r = db_exec(c, ST_QUEUE_COUNT, 0, NULL, &e);
			if (r) {
				long long cnt = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
				long long mx = strtoll(PQgetvalue(r, 0, 1), NULL, 10);
				if (cnt > 0 && (kicked || cnt != seen_count || mx != seen_max ||
						now_ms() - last_full >= 5000))
					avail = cnt;
				seen_count = cnt;
				seen_max = mx;
				PQclear(r);
			}
			if (avail)
				last_full = now_ms();
			serve_waiters(q, c, avail);
		}
	}
	return NULL;
}

struct lease_queue *lease_queue_start(struct server *srv)
{
	struct lease_queue *q = xcalloc(1, sizeof(*q));

	q->srv = srv;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->cond, NULL);
	if (pthread_create(&q->thread, NULL, lease_thread, q)) {
		free(q);
		return NULL;
	}
	return q;
}

void lease_queue_kick(struct lease_queue *q)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	q->kicked = 1;
	pthread_cond_signal(&q->cond);
	pthread_mutex_unlock(&q->lock);
}

void lease_queue_park(struct lease_queue *q, struct request *rq, long long machine_id,
		      const char *request_id, long long deadline_ms)
{
	struct waiter *w = xcalloc(1, sizeof(*w));

	w->rq = rq;
	w->machine_id = machine_id;
	if (request_id)
		snprintf(w->request_id, sizeof(w->request_id), "%s", request_id);
	w->deadline_ms = deadline_ms;
	pthread_mutex_lock(&q->lock);
	w->next = q->waiters;
	q->waiters = w;
	pthread_mutex_unlock(&q->lock);
}

void lease_queue_stop(struct lease_queue *q)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	q->stopping = 1;
	pthread_cond_signal(&q->cond);
	pthread_mutex_unlock(&q->lock);
	pthread_join(q->thread, NULL);
	serve_waiters(q, NULL, 0);
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->cond);
	free(q);
}

#include "server/jobs/lease.h"
#include "clock.h"
#include "attr.h"
#include "server/bgthread.h"
#include "server/config.h"
#include "server/db/db.h"
#include "server/db/jobs.h"
#include "server/log.h"
#include "server/jobs/powercycle.h"
#include "xalloc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct waiter {
	void (*answer)(void *ctx, json_t *job);
	void *ctx;
	long long machine_id;
	char request_id[40]; /* "" for none */
	long long deadline_ms;
	struct waiter *next;
};

/* Leases without a heartbeat are looked for this often */
#define LEASE_EXPIRE_MS 1000
/* The parked are retried at least this often even when count and newest id look unchanged
 * (a job leased and another requeued between two reads look the same) */
#define LEASE_FULL_PASS_MS 5000

struct lease_queue {
	struct server *srv;
	struct bgthread *thread;
	pthread_mutex_t lock; /* guards waiters */
	struct waiter *waiters;
	atomic_int kicked; /* a job was queued since the last step */
	atomic_int stopping;
	/* the thread's own state between steps */
	long long last_expire, last_full, seen_count, seen_max;
};

int lease_try(struct db_conn *c, long long machine_id, const char *request_id, long lease_s,
	      json_t **job, struct err *e)
{
	long long id = 0;
	int got = 0;

	*job = NULL;
	if (request_id) {
		got = db_job_lease_again(c, machine_id, request_id, lease_s, &id, e);
		if (got < 0)
			return -1;
		if (got)
			slog_info("job %lld leased again to machine %lld (lease request %s asked "
				  "again: its reply was lost, or the worker restarted)",
				  id, machine_id, request_id);
	}
	if (!got) {
		got = db_job_lease(c, machine_id, lease_s, request_id, &id, e);
		if (got <= 0)
			return got;
	}
	got = db_job_spec(c, id, job, e);
	if (got < 0)
		return -1;
	if (!got)
		return err_setc(e, ERR_DB, "job", "leased job %lld has no spec", id);
	return 1;
}

int lease_expire(struct db_conn *c, const struct config *cfg, struct err *e)
{
	struct db_job_expired *jobs;
	long n = db_job_expire(c, &jobs, e);

	for (long i = 0; i < n; i++) {
		slog_info("job %lld lease expired, now %s", jobs[i].id, jobs[i].state);
		if (cfg && cfg->power_cycle && *cfg->power_cycle && jobs[i].kexec_host[0])
			powercycle_start(cfg->power_cycle, (int)cfg->power_cycle_timeout_s,
					 jobs[i].kexec_host, jobs[i].machine_id, jobs[i].id);
	}
	free(jobs);
	return (int)n;
}

static void finish(struct waiter *w, json_t *job)
{
	w->answer(w->ctx, job);
	free(w);
}

/*
 * One pass over the parked requests; the lock is not held during db calls.
 * `avail` is how many jobs were queued when the pass began (0: lease
 * none, only answer the expired): the pass stops leasing once that many
 * went out, so one new job costs one or two queries, not one per parked
 * worker (docs/internals/performance.md, "lease long poll"). Jobs
 * submitted meanwhile kick another pass.
 */
static void serve_waiters(struct lease_queue *q, struct db_conn *c, long long avail)
{
	struct waiter *list, *w, *keep = NULL;
	long long now = mono_ms();
	struct err e;

	pthread_mutex_lock(&q->lock);
	list = q->waiters;
	q->waiters = NULL;
	pthread_mutex_unlock(&q->lock);

	while ((w = list)) {
		json_t *job = NULL;
		list = w->next;
		if (avail > 0 && c) {
			int got = lease_try(c, w->machine_id,
					    w->request_id[0] ? w->request_id : NULL,
					    q->srv->cfg->lease_timeout_s, &job, &e);

			if (got < 0)
				slog_error("lease: %s", e.message);
			else if (got)
				avail--;
		}
		if (job || now >= w->deadline_ms || atomic_load(&q->stopping)) {
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

/*
 * One step of the thread: expire overdue leases (every LEASE_EXPIRE_MS),
 * then, when requests are parked, lease to them as many jobs as are
 * queued. Runs again after LEASE_POLL_MS, or at once when kicked.
 */
static long lease_step(void *arg, int *fd UNUSED)
{
	struct lease_queue *q = arg;
	int kicked = atomic_exchange(&q->kicked, 0), parked;
	long long avail = 0, cnt, mx;
	struct err e;
	struct db_conn *c = db_conn(q->srv->db, &e);

	if (!c) {
		serve_waiters(q, NULL, 0); /* deadlines still apply */
		return LEASE_POLL_MS;
	}
	if (mono_ms() - q->last_expire >= LEASE_EXPIRE_MS) {
		q->last_expire = mono_ms();
		if (lease_expire(c, q->srv->cfg, &e) > 0)
			kicked = 1;
	}
	pthread_mutex_lock(&q->lock);
	parked = q->waiters != NULL;
	pthread_mutex_unlock(&q->lock);
	if (!parked)
		return LEASE_POLL_MS;
	if (!db_queue_count(c, &cnt, &mx, &e)) {
		if (cnt > 0 && (kicked || cnt != q->seen_count || mx != q->seen_max ||
				mono_ms() - q->last_full >= LEASE_FULL_PASS_MS))
			avail = cnt;
		q->seen_count = cnt;
		q->seen_max = mx;
	}
	if (avail)
		q->last_full = mono_ms();
	serve_waiters(q, c, avail);
	return LEASE_POLL_MS;
}

struct lease_queue *lease_queue_start(struct server *srv)
{
	struct lease_queue *q = xcalloc(1, sizeof(*q));
	struct err e;

	q->srv = srv;
	q->seen_count = -1;
	q->seen_max = -1;
	pthread_mutex_init(&q->lock, NULL);
	q->thread = bgthread_start("lease", lease_step, q, &e);
	if (!q->thread) {
		slog_error("%s", e.message);
		pthread_mutex_destroy(&q->lock);
		free(q);
		return NULL;
	}
	return q;
}

void lease_queue_kick(struct lease_queue *q)
{
	if (!q)
		return;
	atomic_store(&q->kicked, 1);
	bgthread_kick(q->thread);
}

void lease_queue_park(struct lease_queue *q, long long machine_id, const char *request_id,
		      long long deadline_ms, void (*answer)(void *ctx, json_t *job), void *ctx)
{
	struct waiter *w = xcalloc(1, sizeof(*w));

	w->answer = answer;
	w->ctx = ctx;
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
	atomic_store(&q->stopping, 1);
	bgthread_stop(q->thread);
	/* everything parked, also during the last step, answers 204 */
	serve_waiters(q, NULL, 0);
	pthread_mutex_destroy(&q->lock);
	free(q);
}

#ifndef REGTRACK_SERVER_LEASE_H
#define REGTRACK_SERVER_LEASE_H

#include <jansson.h>

#include "err.h"
#include "server/server.h"

struct db_conn;

/*
 * Job leasing: one attempt (lease_try), and the queue of waiters behind
 * the long poll of POST /api/v1/jobs/lease with wait_s > 0. This side
 * knows nothing of HTTP: a waiter is a machine, a deadline and a callback;
 * the handler parks its suspended request as one (http_park(), http.h) and
 * the callback resumes it. One background thread (server/bgthread.h, its
 * step every LEASE_POLL_MS) retries the waiters when the queue changes (a
 * job queued through this server kicks it at once; jobs queued through
 * another server are seen within LEASE_POLL_MS) and answers each with its
 * job, or with none at its deadline. The same thread expires leases
 * without a heartbeat every second: the job is requeued with its attempts
 * raised, or fails for good after max_attempts.
 */
#define LEASE_POLL_MS 250

/* New queue and its thread; NULL only if the thread cannot start (logged). */
struct lease_queue *lease_queue_start(struct server *srv);
/* Answers every waiter with no job, stops the thread, frees q. */
void lease_queue_stop(struct lease_queue *q);
/* Wakes the thread now (a job was queued or requeued). */
void lease_queue_kick(struct lease_queue *q);

/*
 * Adds a waiter for a job for machine_id until deadline_ms
 * (CLOCK_MONOTONIC); request_id as for lease_try (copied; NULL for none).
 * Exactly once, on the queue's thread (or in lease_queue_stop()), answer
 * gets ctx (borrowed: it must live until then) and the leased job (new,
 * answer owns it), or NULL when none came by the deadline or the queue
 * stops. answer must not block: it runs between database passes.
 */
void lease_queue_park(struct lease_queue *q, long long machine_id, const char *request_id,
		      long long deadline_ms, void (*answer)(void *ctx, json_t *job), void *ctx);

/*
 * Tries to lease one job for machine_id now. request_id (a UUID in text,
 * or NULL) names the worker's lease request: when a job is still leased
 * to this machine under that name (the reply of an earlier try with it
 * was lost: sql/0012; or the worker was killed running that job and
 * restarted on the same work dir, which keeps the name: worker/agent.h)
 * that job is returned again, its lease renewed and its attempt not
 * counted twice; else the next job is leased under that name. Only the
 * worker that made a name up knows it, so a job is never handed to
 * another worker process that shares the machine id. Returns 1 and a new
 * job object in *job (caller owns it), 0 when no job matches, -1 with e on
 * a database error (the store's errors (db.h); ERR_DB when the leased job has no
 * spec).
 */
int lease_try(struct db_conn *c, long long machine_id, const char *request_id, long lease_s,
	      json_t **job, struct err *e);

/*
 * Expires overdue leases; returns how many jobs changed state, -1 on error.
 * A job's machine with a kexec-ARCH capability is power-cycled when cfg
 * (may be NULL) names a power_cycle program (server/jobs/powercycle.h).
 */
int lease_expire(struct db_conn *c, const struct config *cfg, struct err *e);

#endif

#ifndef REGTRACK_WORKER_HEARTBEAT_H
#define REGTRACK_WORKER_HEARTBEAT_H

#include <pthread.h>
#include <stdatomic.h>

#include <jansson.h>

#include "err.h"
#include "apiclient.h"
#include "worker/config.h"

/*
 * The heartbeat thread of regtrack-worker: renews the lease of the job in
 * flight while job_execute() runs in the agent's thread (worker/agent.h).
 *
 * job_execute()'s phase callback (heartbeat_on_phase) only updates shared state
 * under a mutex; the heartbeat thread posts {phase, progress, message}
 * right after each phase change and every heartbeat_s seconds — except in
 * phase "run" (a case is measuring): one post per run, before it starts
 * (host mode: "host run 2/6"; qemu: "run 2/6 done" between boots), which
 * heartbeat_on_phase() waits for so that it never overlaps a measurement,
 * and one every heartbeat_run_s seconds (default 50 s against the server's
 * default 120 s lease); the server records each in phase_history, the
 * worker logs each, and the thread logs nothing else until the phase ends.
 * So a case shorter than heartbeat_run_s sees no worker activity at all,
 * and a long one sees one small HTTP request per heartbeat_run_s. Both
 * periods are capped at half the lease timeout the server announces
 * ("lease_timeout_s", seconds), with a warning. The server says it in its
 * register, lease and heartbeat replies, and the periods follow the value
 * told last: a worker that registered before the server restarted with a
 * smaller --lease-timeout sizes its next job's heartbeats by the new one.
 * A 409 reply (lease lost) raises the abandon flag: the job's outcome is
 * then not completed (another worker redoes the job) but written to
 * WORK_DIR/spool/dropped/ for a person to look at. job_execute() cannot
 * be interrupted, so an abandoned job still runs to its end first.
 * When job_execute() returns, the main thread alone talks to the server:
 * one "upload" heartbeat (a 409 there abandons the job too), then the
 * completion; late heartbeat replies for a job being completed are ignored.
 *
 * Lifecycle: heartbeat_init(), heartbeat_start() (after register),
 * heartbeat_set_job() around each job, heartbeat_release() (stops and
 * joins the thread). The thread has its own HTTP client; the agent's
 * thread uses its own for heartbeat_post() of the "upload" phase.
 */
struct heartbeat {
	const struct worker_config *cfg; /* borrowed: heartbeat_s, heartbeat_run_s */
	struct api_client api;		 /* the thread's own */
	pthread_mutex_t lock;
	pthread_cond_t cond; /* on CLOCK_MONOTONIC */
	pthread_t thread;
	int running;

	/* under lock */
	int quit;
	int period_s, run_period_s; /* periods in use (see set_periods in heartbeat.c) */
	long long lease_timeout_s;  /* the server's, as last told, s; 0 unknown, -1 not yet */
	long long job_id;	    /* 0: no job */
	json_t *machine_id;	    /* of the job, owned while job_id != 0 */
	char phase[32];
	double progress;
	char message[256];
	int phase_changed; /* post now (not for "run") */
	/*
	 * a step of phase "run" (a new message: "host run 2/6", "run 1/3 done"):
	 * posted at once, and heartbeat_on_phase() waits (up to http_timeout_s)
	 * until it was, so the post never overlaps the next measurement
	 */
	int run_step;
	unsigned long steps_asked, steps_posted;
	int completing; /* the agent's thread sends heartbeat + completion */

	atomic_int abandon;  /* the server said 409 for the current job */
	atomic_int failures; /* failed heartbeats of the current job */
};

/* Sets h up (no thread yet). Returns 0, or -1 (e filled) when its client cannot be made. */
int heartbeat_init(struct heartbeat *h, const struct worker_config *cfg, struct err *e)
	__attribute__((warn_unused_result));
/* Starts the thread. Returns 0, or -1 when it cannot be created. */
int heartbeat_start(struct heartbeat *h) __attribute__((warn_unused_result));
/* Stops and joins the thread (when started) and frees everything. */
void heartbeat_release(struct heartbeat *h);

/*
 * The job in flight (job_id 0: none; machine_id borrowed, held by h until
 * the next call) in its first phase. A new job clears abandon and failures.
 */
void heartbeat_set_job(struct heartbeat *h, long long job_id, json_t *machine_id,
		       const char *phase);
/*
 * job_execute()'s phase callback, ctx = h: state, a log line on a phase
 * change and on each step of phase "run" (a new message), and for such a
 * step the wait for its post (see run_step).
 */
void heartbeat_on_phase(void *ctx, const char *phase, double progress, const char *message);
/* job_execute() returned: phase "upload"; from now the agent's thread alone posts. */
void heartbeat_completing(struct heartbeat *h);

/* The server's lease timeout (s; <= 0 unknown: the configured periods), told by reply `from`. */
void heartbeat_set_lease_timeout(struct heartbeat *h, long long lease_timeout_s, const char *from);
/* heartbeat_set_lease_timeout() for a reply's "lease_timeout_s", when it has a positive one. */
void heartbeat_learn_lease_timeout(struct heartbeat *h, const json_t *reply, const char *from);

/*
 * One heartbeat through client c (the caller's own); no lock held.
 * Returns 0 renewed, 1 lease lost (409), -1 failed (e filled). On 0,
 * *lease_timeout_s (may be NULL) is the reply's "lease_timeout_s", 0 when
 * it has none.
 */
int heartbeat_post(struct api_client *c, json_t *machine_id, long long job_id, const char *phase,
		   double progress, const char *message, long long *lease_timeout_s, struct err *e);

#endif

#ifndef REGTRACK_WORKER_AGENT_H
#define REGTRACK_WORKER_AGENT_H

#include <pthread.h>
#include <stdatomic.h>

#include <jansson.h>

#include "err.h"
#include "apiclient.h"
#include "worker/config.h"
#include "worker/fingerprint.h"
#include "worker/heartbeat.h"
#include "worker/sandbox.h"
#include "worker/spool.h"

/*
 * The agent loop of regtrack-worker (`run`):
 *
 *   1. send what the spool still holds (a restarted worker's results first)
 *   2. register: POST /api/v1/workers/register with the host fingerprint
 *   3. loop: POST /api/v1/jobs/lease (long-poll lease_wait_s); on a job:
 *      job_execute() with heartbeats from a second thread; the completion
 *      (status + one result document per run) is spooled, then uploaded,
 *      with retries and backoff, until the server acknowledged it
 *
 * Heartbeats: a second thread (worker/heartbeat.h) renews the lease while
 * job_execute() runs; see there for when it posts and what a 409 does.
 * Every request of a job carries machine_id, so the server checks the
 * lease is this machine's and acknowledges a retried completion it stored.
 *
 * Crash and restart: the name of the lease request of the job in flight
 * is kept in WORK_DIR/lease-request until the job's completion is in the
 * spool. A worker restarted on the same work dir (the spool lock proves
 * the old process is gone) asks for its first lease under that name, and
 * the server hands back the job still leased to this machine under it:
 * the job runs again at once, same attempt, instead of sitting out the
 * rest of its lease. Other workers sharing the machine id (same host,
 * arch and tbox_group) use other work dirs and cannot take it.
 *
 * Executor errors (job_execute() returning -1: invalid job, no case binary,
 * fetch failure, missing tools) complete the job as "run-failed" with
 * "regtrack-worker: CODE: message" at the end of the log tail, so the
 * reason shows on the job page (GET /api/v1/jobs/{id} "log_tail"). No
 * completion says "ok" without a result: that too is sent as "run-failed".
 *
 * Stop (SIGTERM/SIGINT raise *stop): a lease long-poll is cut short and the
 * agent exits; a job that was leased but not started is handed back (not
 * run: its lease expires on the server and it is queued again); a job that
 * is running is finished and its completion uploaded; completions the
 * server cannot take right now stay in the spool for the next start.
 *
 * --once: at most one lease request and one job. Each step that fails
 * for a transient reason (server unreachable, 5xx: sending the spool,
 * register, lease, the completion's upload) is retried with backoff for
 * retry_max_s seconds from its first failure, then given up with an error
 * ("STEP: giving up after N failed attempt(s) ..."); without --once the
 * retries go on for ever. Giving up never discards a completion: it stays
 * in WORK_DIR/spool/ and is sent first on the next start. Exit status of
 * agent_run(): 0 = the job ran and its completion was delivered (whatever
 * the job's own status), or no job was offered within lease_wait_s, or a
 * clean stop; 1 = registration refused, a step given up (--once), the
 * lease was lost (heartbeat or completion answered 409), a completion was
 * set aside (spool/dropped/ or spool/rejected/), or a completion is still
 * in the spool when the agent had to stop.
 */
struct agent {
	struct worker_config *cfg; /* borrowed */
	const atomic_int *stop;	   /* borrowed; raised by signal handlers */
	struct fingerprint fp;
	json_t *machine;       /* result documents' "machine" object, owned */
	json_t *machine_id;    /* from register, owned */
	struct api_client api; /* main thread */
	struct spool spool;
	char *cases_dir, *ccache_dir; /* resolved, owned */
	json_t *cases;		/* caselist_collect(): sent at registration; owned, may be NULL */
	int make_jobs;		/* resolved */
	struct sandbox sandbox; /* what builds run in (sandbox.h) */
	/*
	 * the name of the lease request in flight (a UUID, "" between leases):
	 * kept while a lease is retried after a transport error or a 5xx, so a
	 * job leased by a request whose reply was lost comes back (sql/0012)
	 */
	char lease_request[37];
	char *lease_file; /* WORK_DIR/lease-request (see agent.c), owned */

	struct heartbeat hb; /* the heartbeat thread and what it posts */

	struct kexec_conf kexec; /* cfg's kexec keys (worker_config_kexec), borrowed strings */
};

/*
 * Prepares the agent: fingerprint, spool (WORK_DIR/spool, locked), HTTP
 * clients, resolved directories. cfg must have passed
 * worker_config_check(); cfg and stop are borrowed for the agent's life.
 * Errors: those of fingerprint_collect(), spool_open() (ERR_BUSY when
 * another worker uses the work dir), api_client_init(); ERR_IO when WORK_DIR
 * cannot be created; ERR_CONFIG for a bad `sandbox` or `build_user`. Release with agent_release() in every case.
 */
int agent_init(struct agent *a, struct worker_config *cfg, const atomic_int *stop, struct err *e)
	__attribute__((warn_unused_result));
void agent_release(struct agent *a);

/* Runs the loop above; returns the process exit status (0 or 1). */
int agent_run(struct agent *a);

/*
 * The register request body: {hostname, arch, tbox_group, nr_cpus,
 * memory_mb, cpu_model, capabilities[], fingerprint{}}. New reference.
 */
json_t *agent_register_body(const struct agent *a);

/*
 * The case binaries' dir: `configured` when not "", else bin/cases beside
 * the executable when it exists, else PREFIX/share/regtrack/cases beside
 * it. New string (free()).
 */
char *agent_cases_dir(const char *configured);

#endif

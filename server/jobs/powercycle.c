/* Power-cycling a hung bare-metal machine at its lease's expiry (powercycle.h). */
#include "server/jobs/powercycle.h"
#include "runcmd.h"
#include "server/log.h"
#include "xalloc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void powercycle_argv(const char *argv[5], const char *program, const char *host,
		     long long machine_id, long long job_id, char ids[2][24])
{
	snprintf(ids[0], 24, "%lld", machine_id);
	snprintf(ids[1], 24, "%lld", job_id);
	argv[0] = program;
	argv[1] = host;
	argv[2] = ids[0];
	argv[3] = ids[1];
	argv[4] = NULL;
}

int powercycle_run(const char *program, int timeout_s, const char *host, long long machine_id,
		   long long job_id)
{
	const char *argv[5];
	char ids[2][24], how[64];
	struct runcmd cmd;
	struct err e;
	int rc = -1;

	powercycle_argv(argv, program, host, machine_id, job_id, ids);
	runcmd_init(&cmd, argv, timeout_s > 0 ? timeout_s : 120);
	cmd.merge_stderr = 1;
	if (runcmd_run(&cmd, &e) < 0) {
		slog_warn("power cycle of '%s' (job %lld): %s", host, job_id, e.message);
	} else if (!runcmd_ok(&cmd)) {
		slog_warn("power cycle of '%s' (job %lld) failed (%s): %.300s", host, job_id,
			  runcmd_describe(&cmd, how, sizeof(how)), cmd.out.data);
	} else {
		slog_info("power cycle of '%s' (machine %lld, job %lld) done in %.1f s", host,
			  machine_id, job_id, cmd.elapsed_s);
		rc = 0;
	}
	runcmd_release(&cmd);
	return rc;
}

struct cycle {
	char *program, *host;
	int timeout_s;
	long long machine_id, job_id;
};

static void *cycle_thread(void *arg)
{
	struct cycle *c = arg;

	(void)powercycle_run(c->program, c->timeout_s, c->host, c->machine_id, c->job_id);
	free(c->program);
	free(c->host);
	free(c);
	return NULL;
}

void powercycle_start(const char *program, int timeout_s, const char *host, long long machine_id,
		      long long job_id)
{
	struct cycle *c = xcalloc(1, sizeof(*c));
	pthread_attr_t at;
	pthread_t t;

	c->program = xstrdup(program);
	c->host = xstrdup(host);
	c->timeout_s = timeout_s;
	c->machine_id = machine_id;
	c->job_id = job_id;
	slog_info("job %lld: lease of bare-metal machine '%s' expired: power cycle", job_id, host);
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &at, cycle_thread, c)) {
		slog_warn("power cycle of '%s' (job %lld): cannot start a thread", host, job_id);
		free(c->program);
		free(c->host);
		free(c);
	}
	pthread_attr_destroy(&at);
}

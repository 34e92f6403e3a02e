/*
 * regtrack-worker: the agent that runs jobs on a test host.
 *
 *   regtrack-worker run [--once] [--config FILE] [--server URL] [--token TOKEN]
 *                       [--work-dir DIR] [--arch ARCH] [--tbox-group NAME]
 *                       [--capabilities host,qemu-x86_64,qemu-aarch64] [--cases-dir DIR] ...
 *   regtrack-worker fingerprint [--config FILE] [...]   print the register request
 *   regtrack-worker reproduce --kconfig K --testcase T [...]   one data point here, inside a
 *                       kernel tree, no server (worker/reproduce.h)
 *   regtrack-worker help
 *
 * Exit status: 0 ok (see agent.h for --once), 1 failure, 2 usage or config error.
 */
#include "worker/agent.h"
#include "worker/config.h"
#include "worker/reproduce.h"
#include "worker/wlog.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static atomic_int stop_requested;

static void on_signal(int sig)
{
	atomic_store(&stop_requested, sig);
}

static void usage(FILE *f)
{
	fputs("usage: regtrack-worker run [--once] [options]\n"
	      "       regtrack-worker fingerprint [options]\n"
	      "       regtrack-worker reproduce --kconfig K --testcase T [--params k=v,...]\n"
	      "           [--measure icount] [--arch aarch64] [--commit SHA] [--patches FILE.mbox]\n"
	      "           [--repeat N]   (inside a kernel tree; no server, no token)\n"
	      "\n"
	      "Options (each also a key of the --config file; flags win, env REGTRACK_TOKEN\n"
	      "sits between the file and --token):\n",
	      f);
	worker_config_usage(f);
}

static int setup_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: a blocking call returns early, the loops check the flag */
	if (sigaction(SIGTERM, &sa, NULL) || sigaction(SIGINT, &sa, NULL))
		return -1;
	sa.sa_handler = SIG_IGN;
	return sigaction(SIGPIPE, &sa, NULL);
}

static int cmd_run(struct worker_config *cfg)
{
	struct agent a;
	struct err e;
	int ret;

	if (worker_config_check(cfg, &e)) {
		fprintf(stderr, "regtrack-worker: %s\n", e.message);
		return 2;
	}
	if (setup_signals()) {
		fprintf(stderr, "regtrack-worker: cannot install signal handlers\n");
		return 1;
	}
	if (agent_init(&a, cfg, &stop_requested, &e)) {
		wlog_error("%s", e.message);
		agent_release(&a);
		return 1;
	}
	ret = agent_run(&a);
	agent_release(&a);
	return ret;
}

static int cmd_fingerprint(struct worker_config *cfg)
{
	struct agent a;
	struct err e;
	json_t *body;

	memset(&a, 0, sizeof(a));
	a.cfg = cfg;
	if (fingerprint_collect(&a.fp, "/", &e)) {
		fprintf(stderr, "regtrack-worker: %s\n", e.message);
		fingerprint_release(&a.fp);
		return 1;
	}
	body = agent_register_body(&a);
	json_dumpf(body, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
	fputc('\n', stdout);
	json_decref(body);
	fingerprint_release(&a.fp);
	return 0;
}

int main(int argc, char **argv)
{
	struct worker_config cfg;
	struct err e;
	const char *cmd = argc > 1 ? argv[1] : "";
	int ret;

	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "reproduce"))
		return reproduce_main(argc - 1, argv + 1);
	if (strcmp(cmd, "run") && strcmp(cmd, "fingerprint")) {
		if (*cmd)
			fprintf(stderr, "regtrack-worker: unknown command '%s'\n", cmd);
		usage(stderr);
		return 2;
	}
	for (int i = 2; i < argc; i++)
		if (!strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
	worker_config_init(&cfg);
	ret = worker_config_from_args(&cfg, argc - 1, argv + 1, getenv("REGTRACK_TOKEN"), &e);
	/* read once; no child (git, make, qemu) inherits it */
	unsetenv("REGTRACK_TOKEN");
	if (!ret)
		ret = worker_config_read_token(&cfg, &e);
	if (ret) {
		fprintf(stderr, "regtrack-worker: %s\n", e.message);
		worker_config_release(&cfg);
		return 2;
	}
	if (api_client_global_init()) {
		fprintf(stderr, "regtrack-worker: cannot initialise libcurl\n");
		worker_config_release(&cfg);
		return 1;
	}
	if (!strcmp(cmd, "run"))
		ret = cmd_run(&cfg);
	else
		ret = cmd_fingerprint(&cfg);
	api_client_global_cleanup();
	worker_config_release(&cfg);
	return ret;
}

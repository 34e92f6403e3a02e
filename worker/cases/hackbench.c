/*
 * hackbench — the scheduler and IPC benchmark of Debian's rt-tests, as LKP's
 * hackbench job runs it.
 *
 * A tool case (README "Benchmark tools"): this program checks the params,
 * records the tool's version (`hackbench --help`'s first line, "hackbench
 * V 2.40") and runs, `iterations` times,
 *
 *   hackbench --pipe? --threads|--process -g GROUPS -f FDS -l LOOPS -s DATASIZE
 *
 * with the tool's output on stdout, which the worker parses with
 * lib/parse/hackbench.c: LKP's hackbench.throughput (KB/s of messages of
 * the best iteration; higher is better), .throughput_avg,
 * .throughput_worst, .throughput_best and .iteration_throughput (each
 * iteration). Every iteration is the measured phase for perf.
 *
 * Example: hackbench mode=threads ipc=pipe groups=2 loops=1000
 */
#include <stdio.h>
#include <stdlib.h>

#include "casecommon.h"

enum { P_MODE, P_IPC, P_GROUPS, P_FDS, P_LOOPS, P_DATASIZE, P_ITERATIONS };

static struct case_param params[] = {
	[P_MODE] = { "mode", CASE_PARAM_CHOICE, "process", 0, 0, "process|threads",
		     "tasks are processes or threads" },
	[P_IPC] = { "ipc", CASE_PARAM_CHOICE, "socket", 0, 0, "socket|pipe",
		    "messages through socketpairs or pipes" },
	[P_GROUPS] = { "groups", CASE_PARAM_INT, "1", 1, 10000, NULL,
		       "groups of 2 x fds tasks (senders and receivers)" },
	[P_FDS] = { "fds", CASE_PARAM_INT, "20", 1, 1000, NULL, "senders (= receivers) per group" },
	[P_LOOPS] = { "loops", CASE_PARAM_INT, "100", 1, 100000000, NULL,
		      "messages each sender sends to each receiver" },
	[P_DATASIZE] = { "datasize", CASE_PARAM_INT, "100", 1, 1048576, NULL, "bytes per message" },
	[P_ITERATIONS] = { "iterations", CASE_PARAM_INT, "3", 1, 1000, NULL,
			   "runs of hackbench, one Time line each" },
};

int main(int argc, char **argv)
{
	char groups[32], fds[32], loops[32], datasize[32];
	char *version[] = { "hackbench", "--help", NULL };
	char *run[16];
	int n = 0, i, rc;

	case_params_parse("hackbench", "rt-tests' hackbench: messages between task pairs, KB/s",
			  params, sizeof(params) / sizeof(params[0]), argc, argv);
	snprintf(groups, sizeof(groups), "%ld", params[P_GROUPS].ival);
	snprintf(fds, sizeof(fds), "%ld", params[P_FDS].ival);
	snprintf(loops, sizeof(loops), "%ld", params[P_LOOPS].ival);
	snprintf(datasize, sizeof(datasize), "%ld", params[P_DATASIZE].ival);
	run[n++] = "hackbench";
	if (params[P_IPC].ival == 1)
		run[n++] = "--pipe";
	run[n++] = params[P_MODE].ival ? "--threads" : "--process";
	run[n++] = "-g";
	run[n++] = groups;
	run[n++] = "-f";
	run[n++] = fds;
	run[n++] = "-l";
	run[n++] = loops;
	run[n++] = "-s";
	run[n++] = datasize;
	run[n] = NULL;
	case_tool_version("hackbench", version);
	for (i = 0; i < params[P_ITERATIONS].ival; i++) {
		rc = case_tool_exec(run);
		if (rc)
			return rc;
	}
	return 0;
}

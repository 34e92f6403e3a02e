/*
 * perf-bench — `perf bench` of the kernel tree under test: sched messaging
 * and pipe, mem memcpy and memset, futex hash, epoll wait.
 *
 * A tool case (README "Benchmark tools"): this program checks the params,
 * records the tool's version (`perf --version`, "perf version 6.1.0") and
 * runs, `iterations` times, one of
 *
 *   perf bench sched messaging [--pipe] [--thread] -g GROUPS [-l LOOPS]
 *   perf bench sched pipe [-l LOOPS]
 *   perf bench mem memcpy|memset -s SIZE_KBKB -f FUNCTION [-l LOOPS]
 *   perf bench futex hash|epoll wait -t NR_THREADS -r RUNTIME
 *
 * with perf's default output on stdout, which the worker parses with
 * lib/parse/perf_bench.c under LKP's names: perf-bench-sched-pipe.ops_per_sec,
 * .usecs_per_op, .total_time_sec; perf-bench-sched-messaging.total_time_sec;
 * perf-bench-mem-memcpy.FUNCTION.GB_per_sec; perf-bench-futex-hash.ops_per_sec,
 * perf-bench-epoll-wait.ops_per_sec. Each run is the measured phase for perf.
 *
 * The perf is the tree's own tools/perf, built static by the worker
 * (worker/kernel_build.c) and put in the initramfs as /bin/perf, as for a
 * profiled job; in host mode, the host's perf in PATH.
 *
 * Example: perf-bench bench=sched-pipe loops=100000
 */
#include <stdio.h>
#include <string.h>

#include "casecommon.h"

enum {
	P_BENCH,
	P_LOOPS,
	P_GROUPS,
	P_MODE,
	P_IPC,
	P_SIZE_KB,
	P_FUNCTION,
	P_NR_THREADS,
	P_RUNTIME,
	P_ITERATIONS
};

static struct case_param params[] = {
	[P_BENCH] = { "bench", CASE_PARAM_CHOICE, "sched-pipe", 0, 0,
		      "sched-messaging|sched-pipe|mem-memcpy|mem-memset|futex-hash|epoll-wait",
		      "perf bench COLLECTION BENCH" },
	[P_LOOPS] = { "loops", CASE_PARAM_INT, "0", 0, 100000000, NULL,
		      "-l: messages per sender (sched-messaging), pipe round trips "
		      "(sched-pipe), repeats (mem); 0: perf's default" },
	[P_GROUPS] = { "groups", CASE_PARAM_INT, "1", 1, 10000, NULL,
		       "-g: groups of 20 senders and 20 receivers (sched-messaging)" },
	[P_MODE] = { "mode", CASE_PARAM_CHOICE, "process", 0, 0, "process|threads",
		     "tasks are processes or threads (sched-messaging)" },
	[P_IPC] = { "ipc", CASE_PARAM_CHOICE, "socket", 0, 0, "socket|pipe",
		    "messages through socketpairs or pipes (sched-messaging)" },
	[P_SIZE_KB] = { "size_kb", CASE_PARAM_INT, "1024", 1, 1048576, NULL,
			"-s: bytes copied or set per loop, in KiB (mem)" },
	[P_FUNCTION] = { "function", CASE_PARAM_CHOICE, "all", 0, 0, "all|default",
			 "-f: every memcpy/memset perf has for the arch, or glibc's (mem)" },
	[P_NR_THREADS] = { "nr_threads", CASE_PARAM_TASKS, "1", 1, 4096, NULL,
			   "-t: threads (futex-hash, epoll-wait)" },
	[P_RUNTIME] = { "runtime", CASE_PARAM_DURATION, "5s", 1, 3600, NULL,
			"-r: run time, whole seconds (futex-hash, epoll-wait)" },
	[P_ITERATIONS] = { "iterations", CASE_PARAM_INT, "1", 1, 1000, NULL,
			   "runs of the benchmark, one value each" },
};

int main(int argc, char **argv)
{
	char loops[32], groups[32], size[40], threads[32], runtime[32], coll[32];
	char *version[] = { "perf", "--version", NULL };
	char *run[24], *bench;
	const char *b;
	int n = 0, i, rc;

	case_params_parse("perf-bench", "the tree's perf bench: scheduler, memory, futex, epoll",
			  params, sizeof(params) / sizeof(params[0]), argc, argv);
	b = params[P_BENCH].sval;
	/* "sched-pipe" -> "sched" "pipe": every choice has one '-' */
	snprintf(coll, sizeof(coll), "%s", b);
	bench = strchr(coll, '-');
	*bench++ = '\0';
	snprintf(loops, sizeof(loops), "%ld", params[P_LOOPS].ival);
	snprintf(groups, sizeof(groups), "%ld", params[P_GROUPS].ival);
	snprintf(size, sizeof(size), "%ldKB", params[P_SIZE_KB].ival);
	snprintf(threads, sizeof(threads), "%ld", params[P_NR_THREADS].ival);
	/* perf takes whole seconds */
	snprintf(runtime, sizeof(runtime), "%.0f",
		 params[P_RUNTIME].dval < 1 ? 1 : params[P_RUNTIME].dval);
	run[n++] = "perf";
	run[n++] = "bench";
	run[n++] = coll;
	run[n++] = bench;
	if (!strcmp(b, "sched-messaging")) {
		if (params[P_IPC].ival == 1)
			run[n++] = "--pipe";
		if (params[P_MODE].ival == 1)
			run[n++] = "--thread";
		run[n++] = "-g";
		run[n++] = groups;
	} else if (!strncmp(b, "mem-", 4)) {
		run[n++] = "-s";
		run[n++] = size;
		run[n++] = "-f";
		run[n++] = (char *)params[P_FUNCTION].sval;
	} else if (!strcmp(b, "futex-hash") || !strcmp(b, "epoll-wait")) {
		run[n++] = "-t";
		run[n++] = threads;
		run[n++] = "-r";
		run[n++] = runtime;
	}
	if (params[P_LOOPS].ival > 0 && strcmp(coll, "futex") && strcmp(coll, "epoll")) {
		run[n++] = "-l";
		run[n++] = loops;
	}
	run[n] = NULL;
	case_tool_version("perf", version);
	for (i = 0; i < params[P_ITERATIONS].ival; i++) {
		rc = case_tool_exec(run);
		if (rc)
			return rc;
	}
	return 0;
}

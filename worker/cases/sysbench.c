/*
 * sysbench — the cpu, memory and threads tests of Debian's sysbench.
 *
 * A tool case (README "Benchmark tools"): this program checks the params,
 * records the tool's version (`sysbench --version`, "sysbench 1.0.20") and
 * runs
 *
 *   sysbench TEST --threads=N --time=T run
 *
 * with the tool's output on stdout, which the worker parses with
 * lib/parse/sysbench.c: sysbench.events_per_sec (cpu), .operations_per_sec
 * and .MiB_per_sec (memory), .total_events, .latency_avg_ms,
 * .latency_95th_percentile_ms, ... (every test). The run is the measured
 * phase for perf.
 *
 * Example: sysbench test=memory nr_threads=100% time=10s
 */
#include <stdio.h>

#include "casecommon.h"

enum { P_TEST, P_NR_THREADS, P_TIME };

static struct case_param params[] = {
	[P_TEST] = { "test", CASE_PARAM_CHOICE, "cpu", 0, 0, "cpu|memory|threads",
		     "sysbench's test" },
	[P_NR_THREADS] = { "nr_threads", CASE_PARAM_TASKS, "1", 1, 4096, NULL,
			   "worker threads (--threads)" },
	[P_TIME] = { "time", CASE_PARAM_DURATION, "10s", 1, 86400, NULL, "run time (--time)" },
};

int main(int argc, char **argv)
{
	char threads[48], time[48];
	char *version[] = { "sysbench", "--version", NULL };
	char *run[] = { "sysbench", NULL, threads, time, "run", NULL };

	case_params_parse("sysbench", "sysbench's cpu, memory or threads test", params,
			  sizeof(params) / sizeof(params[0]), argc, argv);
	run[1] = (char *)params[P_TEST].sval;
	snprintf(threads, sizeof(threads), "--threads=%ld", params[P_NR_THREADS].ival);
	/* sysbench takes whole seconds */
	snprintf(time, sizeof(time), "--time=%.0f",
		 params[P_TIME].dval < 1 ? 1 : params[P_TIME].dval);
	case_tool_version("sysbench", version);
	return case_tool_exec(run);
}

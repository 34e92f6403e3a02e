/*
 * sysbench: the cpu, memory and threads tests, in sysbench 1.0's layout and
 * in the legacy 0.4 one. A run starts at sysbench's banner ("sysbench
 * 1.0.20 (using system LuaJIT …)", "sysbench 0.4.12:  multi-threaded …");
 * a file without one is one run. Per run, one value each (LKP has no
 * sysbench parser; names after sysbench's own labels, units in the name):
 *
 *   1.0                                  0.4                          metric
 *   CPU speed: events per second: V      -                            events_per_sec
 *   total time: 10.0009s                 total time: 9.7152s          total_time (s)
 *   total number of events: N            the same                     total_events
 *   Latency (ms): min/avg/max: V         per-request statistics:
 *                                          min/avg/max: Vms           latency_min_ms, _avg_ms,
 * _max_ms 95th percentile: V                   approx.  95 percentile: Vms
 * latency_95th_percentile_ms (99th … as printed) sum: V (ms)                          total time
 * taken by event execution: S (s)           latency_sum_ms (0.4's seconds written in ms) events
 * (avg/stddev): A/D             the same                     events_avg, events_stddev execution
 * time (avg/stddev): A/D     the same                     execution_time_avg, execution_time_stddev
 * (s) memory: Total operations: N (V per second)   Operations performed: N (V ops/sec) operations,
 * operations_per_sec X MiB transferred (Y MiB/sec)        X MB transferred (Y MB/sec)
 * transferred_MiB, MiB_per_sec (0.4's MB are 2^20 bytes)
 *
 * The runs of one file must be of one test (their values are repeats of
 * one measurement): the test is told by sysbench's lines ("Prime numbers
 * limit:" / "Doing CPU performance benchmark" cpu, "Running memory speed
 * test" / "Doing memory operations speed test" memory, "Doing thread
 * subsystem performance test" threads, "Doing mutex performance test"
 * mutex; a 1.0 run with none of them is "other", its threads and mutex
 * tests print no such line); a file mixing tests fails, naming them.
 *
 * Numbers with their unit glued on ("10.0009s", "3.88ms") and avg/stddev
 * pairs ("11792.0000/0.00") are split. A run without its "total time"
 * (sysbench failed, "FATAL: …", or the output was cut short) fails the
 * whole parse.
 */
#include "parse/parse_tool.h"

#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

struct sb_run {
	int started; /* a banner or a value was seen */
	int has_total;
	size_t line;	  /* where it started, for the message */
	const char *test; /* "cpu", "memory", …, or NULL (not told) */
};

static const struct {
	const char *line, *test;
} sb_tests[] = {
	{ "Prime numbers limit:", "cpu" },
	{ "Doing CPU performance benchmark", "cpu" },
	{ "Running memory speed test", "memory" },
	{ "Doing memory operations speed test", "memory" },
	{ "Doing thread subsystem performance test", "threads" },
	{ "Doing mutex performance test", "mutex" },
};

/* V, optionally followed by the unit `unit` glued on and nothing else */
static int num_unit(const char *s, const char *unit, double *v)
{
	const char *end;

	s = parse_skip_blank(s);
	if (parse_num(s, &end, v))
		return -1;
	if (!strncmp(end, unit, strlen(unit)))
		end += strlen(unit);
	return *parse_skip_blank(end) ? -1 : 0;
}

/* "A/D" */
static int pair(const char *s, double *a, double *d)
{
	const char *end;

	s = parse_skip_blank(s);
	if (parse_num(s, &end, a) || *end != '/')
		return -1;
	return parse_num_full(end + 1, d);
}

/* the text after "LABEL:" when s (blanks skipped) starts with it */
static const char *after(const char *s, const char *label)
{
	size_t n = strlen(label);

	return strncmp(s, label, n) ? NULL : s + n;
}

/* ends run r; *file_test is the test of the file's first run */
static int run_end(struct parse_ctx *c, struct sb_run *r, const char **file_test)
{
	const char *t = r->test ? r->test : "other";

	if (r->started && !r->has_total) {
		parse_ctx_fail(c,
			       "sysbench run from line %zu has no 'total time' (it failed or "
			       "was cut short)",
			       r->line);
		return -1;
	}
	if (r->started && *file_test && strcmp(*file_test, t)) {
		parse_ctx_fail(c,
			       "runs of different sysbench tests (%s, then %s from line %zu): "
			       "their values are no repeats of one measurement, parse each "
			       "test's output on its own",
			       *file_test, t, r->line);
		return -1;
	}
	if (r->started)
		*file_test = t;
	memset(r, 0, sizeof(*r));
	return 0;
}

/* "Total operations: N (V per second)" / "Operations performed: N (V ops/sec)" */
static int ops_line(struct parse_ctx *c, const char *p, const char *per)
{
	double n, v;
	const char *end;

	p = parse_skip_blank(p);
	if (parse_num(p, &end, &n) || strncmp(end, " (", 2) || parse_num(end + 2, &end, &v) ||
	    *end != ' ' || strcmp(end + 1, per))
		return 0;
	parse_ctx_add(c, "operations", n);
	parse_ctx_add(c, "operations_per_sec", v);
	return 1;
}

/* "X MiB transferred (Y MiB/sec)" or with MB */
static int transferred_line(struct parse_ctx *c, const char *s)
{
	static const char *const units[] = { "MiB", "MB" };
	double x, y;
	const char *end;

	if (parse_num(s, &end, &x))
		return 0;
	for (size_t k = 0; k < ARRAY_SIZE(units); k++) {
		char *mid = xstrfmt(" %s transferred (", units[k]);
		char *tail = xstrfmt(" %s/sec)", units[k]);
		const char *q;
		int ok = !strncmp(end, mid, strlen(mid)) && !parse_num(end + strlen(mid), &q, &y) &&
			 !strcmp(q, tail);

		free(mid);
		free(tail);
		if (ok) {
			parse_ctx_add(c, "transferred_MiB", x);
			parse_ctx_add(c, "MiB_per_sec", y);
			return 1;
		}
	}
	return 0;
}

void parse_sysbench(struct parse_ctx *c, struct parse_lines *l)
{
	static const struct {
		const char *label, *name;
	} lat[] = {
		{ "min:", "latency_min_ms" },
		{ "avg:", "latency_avg_ms" },
		{ "max:", "latency_max_ms" },
		{ "sum:", "latency_sum_ms" },
	};
	struct sb_run r;
	size_t runs = 0;
	const char *file_test = NULL;

	memset(&r, 0, sizeof(r));
	for (size_t i = 0; i < l->n; i++) {
		const char *s = parse_rtrim((char *)parse_skip_blank(l->v[i])), *p;
		size_t k, before = parse_ctx_count(c);
		double v, d;

		if (!strncmp(s, "sysbench ", 9) &&
		    (strstr(s, "(using ") || strstr(s, "multi-threaded"))) {
			if (run_end(c, &r, &file_test))
				return;
			r.started = 1;
			r.line = i + 1;
			continue;
		}
		for (k = 0; k < ARRAY_SIZE(sb_tests); k++)
			if (!strncmp(s, sb_tests[k].line, strlen(sb_tests[k].line)))
				r.test = sb_tests[k].test;
		if (!strncmp(s, "FATAL: ", 7)) {
			parse_ctx_fail(c, "sysbench failed: %s", s);
			return;
		}
		if ((p = after(s, "events per second:")) && !parse_num_full(p, &v)) {
			parse_ctx_add(c, "events_per_sec", v);
		} else if ((p = after(s, "total time:")) && !num_unit(p, "s", &v)) {
			if (r.has_total) {
				/* a second summary without a banner: a second run */
				if (run_end(c, &r, &file_test))
					return;
				r.started = 1;
				r.line = i + 1;
			}
			parse_ctx_add(c, "total_time", v);
			r.has_total = 1;
			runs++;
		} else if ((p = after(s, "total number of events:")) && !parse_num_full(p, &v)) {
			parse_ctx_add(c, "total_events", v);
		} else if ((p = after(s, "total time taken by event execution:")) &&
			   !num_unit(p, "s", &v)) {
			parse_ctx_add(c, "latency_sum_ms", v * 1000);
		} else if ((p = after(s, "approx.")) && (p = parse_skip_blank(p)) &&
			   !parse_num(p, &p, &v) && !strncmp(p, " percentile:", 12) &&
			   !num_unit(p + 12, "ms", &d)) {
			parse_ctx_addf(c, d, "latency_%.0fth_percentile_ms", v);
		} else if (!parse_num(s, &p, &v) && !strncmp(p, "th percentile:", 14) &&
			   !num_unit(p + 14, "ms", &d)) {
			parse_ctx_addf(c, d, "latency_%.0fth_percentile_ms", v);
		} else if ((p = after(s, "events (avg/stddev):")) && !pair(p, &v, &d)) {
			parse_ctx_add(c, "events_avg", v);
			parse_ctx_add(c, "events_stddev", d);
		} else if ((p = after(s, "execution time (avg/stddev):")) && !pair(p, &v, &d)) {
			parse_ctx_add(c, "execution_time_avg", v);
			parse_ctx_add(c, "execution_time_stddev", d);
		} else if ((p = after(s, "Total operations:")) && ops_line(c, p, "per second)")) {
			;
		} else if ((p = after(s, "Operations performed:")) && ops_line(c, p, "ops/sec)")) {
			;
		} else if (transferred_line(c, s)) {
			;
		} else {
			for (k = 0; k < ARRAY_SIZE(lat); k++)
				if ((p = after(s, lat[k].label)) && !num_unit(p, "ms", &v)) {
					parse_ctx_add(c, lat[k].name, v);
					break;
				}
		}
		if (!r.started && parse_ctx_count(c) > before) {
			r.started = 1;
			r.line = i + 1;
		}
	}
	if (run_end(c, &r, &file_test))
		return;
	if (!runs)
		parse_ctx_fail(c, "no sysbench summary ('General statistics' or 'Test execution "
				  "summary' with its total time)");
}

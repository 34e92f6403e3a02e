/*
 * perf bench: the default (human) output of `perf bench COLLECTION BENCH`,
 * one or more benchmarks a file, each starting at perf's line
 *   # Running 'COLLECTION/BENCH' benchmark:
 * Metric names are LKP's (its testcase perf-bench-sched-pipe reports
 * perf-bench-sched-pipe.ops_per_sec): "perf-bench-" COLLECTION "-" BENCH
 * "." NAME, one value per run of the benchmark:
 *
 *   sched/messaging  Total time: 1.495 [sec]          .total_time_sec
 *   sched/pipe       Total time: 0.599 [sec]          .total_time_sec
 *                    29.997150 usecs/op               .usecs_per_op
 *                    33336 ops/sec                    .ops_per_sec
 *   mem/memcpy,      # function 'F' (...)             .F.GB_per_sec (perf's
 *   mem/memset       12.3 GB/sec (MB/sec, KB/sec,     GB, 2^30 bytes, as every
 *                    bytes/sec as perf scales it)     unit is turned into)
 *   futex, epoll     Averaged N operations/sec        .ops_per_sec
 *                    (+- P%), total secs = S          .ops_per_sec_stddev_percent
 *
 * --format=simple is not read: for sched it prints a bare number without
 * the "# Running" line, so neither the benchmark nor the unit is known.
 * perf prints "inf GB/sec" when a copy is too short for its clock: a note,
 * no value. A benchmark with no value at all (perf failed, the output was
 * cut short) fails the whole parse, as does a file without any benchmark.
 */
#include "parse/parse_tool.h"

#include <stdio.h>
#include <string.h>

#include "xalloc.h"

#define PB_NAME 64

struct pb_bench {
	char name[PB_NAME];   /* "sched-pipe" */
	char func[PB_NAME];   /* mem's current function, "" outside mem */
	size_t line, nvalues; /* where it started; values it gave */
};

/* "'sched/pipe' benchmark:" -> "sched-pipe"; 0, or -1 when not a name */
static int bench_name(const char *s, char *out)
{
	const char *q = strchr(s, '\'');
	size_t n = q ? (size_t)(q - s) : 0, i;

	if (!q || n == 0 || n >= PB_NAME || strncmp(q, "' benchmark", 11))
		return -1;
	for (i = 0; i < n; i++) {
		char ch = s[i];

		if (ch == '/')
			ch = '-';
		else if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-' ||
			   ch == '_'))
			return -1;
		out[i] = ch;
	}
	out[n] = '\0';
	return 0;
}

/* mem's "# function 'x86-64-movsb' (...)" -> "x86-64-movsb"; 0 or -1 */
static int func_name(const char *s, char *out)
{
	const char *q = strchr(s, '\'');
	size_t n = q ? (size_t)(q - s) : 0, i;

	if (!q || n == 0 || n >= PB_NAME)
		return -1;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || strchr("-_.", s[i])))
			return -1;
	memcpy(out, s, n);
	out[n] = '\0';
	return 0;
}

static void add(struct parse_ctx *c, struct pb_bench *b, const char *name, double v)
{
	if (*b->func)
		parse_ctx_addf(c, v, "%s.%s.%s", b->name, b->func, name);
	else
		parse_ctx_addf(c, v, "%s.%s", b->name, name);
	b->nvalues++;
}

/* the end of a benchmark: one without a value is a failed run */
static void finish(struct parse_ctx *c, const struct pb_bench *b)
{
	if (*b->name && !b->nvalues)
		parse_ctx_fail(c, "line %zu: '%s' gave no result (perf failed or was cut short)",
			       b->line, b->name);
}

/* mem's rate line: "V GB/sec" (or MB, KB, bytes), in perf's 2^10 steps */
static int mem_rate(struct parse_ctx *c, struct pb_bench *b, const char *s, size_t line)
{
	static const struct {
		const char *unit;
		double div;
	} units[] = {
		{ " GB/sec", 1 },
		{ " MB/sec", 1024 },
		{ " KB/sec", 1024.0 * 1024 },
		{ "d KB/sec", 1024.0 * 1024 }, /* perf's "%lfd KB/sec" */
		{ " bytes/sec", 1024.0 * 1024 * 1024 },
	};
	const char *p;
	double v;

	s = parse_skip_blank(s);
	if (!strncmp(s, "inf ", 4) || !strncmp(s, "-nan ", 5) || !strncmp(s, "nan ", 4)) {
		parse_ctx_note(c, "line %zu: '%s' %s: too short for perf's clock, left out", line,
			       b->name, *b->func ? b->func : "");
		b->nvalues++; /* perf ran; the rate is just not a number */
		return 0;
	}
	if (parse_num(s, &p, &v))
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(p, units[i].unit)) {
			add(c, b, "GB_per_sec", v / units[i].div);
			return 0;
		}
	return -1;
}

void parse_perf_bench(struct parse_ctx *c, struct parse_lines *l)
{
	struct pb_bench b = { "", "", 0, 0 };
	size_t benches = 0;

	for (size_t i = 0; i < l->n; i++) {
		const char *s = l->v[i], *t = parse_skip_blank(s), *p;
		double v, sd;

		if (!strncmp(s, "# Running '", 11)) {
			finish(c, &b);
			memset(&b, 0, sizeof(b));
			if (bench_name(s + 11, b.name) < 0) {
				parse_ctx_fail(c, "line %zu: a benchmark name perf never prints",
					       i + 1);
				return;
			}
			b.line = i + 1;
			benches++;
			continue;
		}
		if (!*b.name)
			continue;
		if (!strncmp(s, "# function '", 12)) {
			if (func_name(s + 12, b.func) < 0)
				*b.func = '\0';
		} else if (!strncmp(t, "Total time: ", 12) && !parse_num(t + 12, &p, &v) &&
			   !strcmp(p, " [sec]")) {
			add(c, &b, "total_time_sec", v);
		} else if (!parse_num(t, &p, &v) && !strcmp(p, " usecs/op")) {
			add(c, &b, "usecs_per_op", v);
		} else if (!parse_num(t, &p, &v) && !strcmp(p, " ops/sec")) {
			add(c, &b, "ops_per_sec", v);
		} else if (!strncmp(t, "Averaged ", 9) && !parse_num(t + 9, &p, &v) &&
			   !strncmp(p, " operations/sec", 15)) {
			add(c, &b, "ops_per_sec", v);
			p = strstr(p, "(+- ");
			if (p && !parse_num(p + 4, &p, &sd) && *p == '%')
				add(c, &b, "ops_per_sec_stddev_percent", sd);
		} else if (!strncmp(b.name, "mem-", 4) && strstr(t, "/sec") &&
			   mem_rate(c, &b, t, i + 1) < 0) {
			parse_ctx_note(c, "line %zu: a rate in a unit perf never prints, left out",
				       i + 1);
		}
	}
	finish(c, &b);
	if (!benches)
		parse_ctx_fail(c, "no \"# Running '...' benchmark:\" line (not perf bench's "
				  "default output)");
}

/*
 * will-it-scale: the CSV that runtest.py prints and the raw output of one
 * test binary.
 *
 * runtest.py (LKP's copy runs one task count):
 *   tasks,processes,processes_idle,threads,threads_idle,linear
 *   0,0,100,0,100,0          <- baseline row, skipped
 *   104,1200363,0.04,0,0.00,0
 * gives per row (after LKP's stats/will-it-scale, N = tasks):
 * N.processes, N.processes_idle, N.threads, N.threads_idle, N.linear,
 * N.per_process_ops = floor(processes / N), N.per_thread_ops =
 * floor(threads / N) (LKP's integer division) and N.workload = processes +
 * threads. Every metric is keyed by its task count: the values of one
 * metric are repeats of one measurement (several concatenated runs of
 * the same task count, each with its own "tasks," header), never rows of
 * different task counts pooled into one series. (LKP's runs have one task
 * count per file and name these per_process_ops, per_thread_ops and
 * workload; ours carry the "N." of the N.processes keys beside them.)
 *
 * Scalability per mode, as upstream runtest.py prints it: with linear =
 * max(processes, threads at 1 task) x N (runtest.py's linear column, filled
 * only when the file has the 1-task row; LKP's runs leave it 0),
 *   N.processes_scalability = processes / linear
 *   N.threads_scalability   = threads / linear
 * for the rows with linear > 0, and only for a mode that ran (a count
 * above 0). LKP has no such metric.
 *
 * Raw binary (./mmap2_processes -t 16 -s 20):
 *   testcase:...  warmup  min:A max:B total:C ...  measurement ...  average:X
 * gives N.processes (or N.threads for a *_threads binary) = X,
 * N.per_process_ops (N.per_thread_ops) = floor(X / N), N.workload = X, with
 * N from "-t N" on the run's command line when present, else the
 * caller's tasks (struct parse_opts: `regtrack parse --tasks N`, for an
 * output saved without its command line), else 1 (the binary's default). Several runs (command
 * lines) in one file give one value each, keyed by their own N; a last run with measurements but no
 * average fails the parse.
 *
 * An "Assertion ... failed" line (the test aborted) fails the run.
 */
#include "parse/parse_tool.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

#define WIS_COLS 16

static const char *const wis_names[] = {
	"tasks", "processes", "processes_idle", "threads", "threads_idle", "linear",
};

/* one run of a raw binary: its average and what it ran */
struct wis_raw {
	long tasks;
	int threads;
	double average;
};

static void wis_row(struct parse_ctx *c, const double *v)
{
	double tasks = v[0], procs = v[1], threads = v[3], linear = v[5];
	long long n = (long long)tasks;

	parse_ctx_addf(c, procs, "%lld.processes", n);
	parse_ctx_addf(c, v[2], "%lld.processes_idle", n);
	parse_ctx_addf(c, threads, "%lld.threads", n);
	parse_ctx_addf(c, v[4], "%lld.threads_idle", n);
	parse_ctx_addf(c, linear, "%lld.linear", n);
	parse_ctx_addf(c, floor(procs / tasks), "%lld.per_process_ops", n);
	parse_ctx_addf(c, floor(threads / tasks), "%lld.per_thread_ops", n);
	parse_ctx_addf(c, procs + threads, "%lld.workload", n);
	/* a mode that was not run (LKP's "process" runs print threads 0) has
	 * no scalability */
	if (linear > 0 && procs > 0)
		parse_ctx_addf(c, procs / linear, "%lld.processes_scalability", n);
	if (linear > 0 && threads > 0)
		parse_ctx_addf(c, threads / linear, "%lld.threads_scalability", n);
}

/* "-t N" anywhere on the line; returns N or 0 */
static long cmdline_tasks(const char *s)
{
	const char *p = s;

	while ((p = strstr(p, "-t"))) {
		if ((p == s || p[-1] == ' ' || p[-1] == '\t') && (p[2] == ' ' || p[2] == '\t')) {
			double v;

			if (!parse_num(parse_skip_blank(p + 2), NULL, &v) && v >= 1 && v < 1e7)
				return (long)v;
		}
		p += 2;
	}
	return 0;
}

void parse_will_it_scale(struct parse_ctx *c, struct parse_lines *l)
{
	int col[ARRAY_SIZE(wis_names)];
	int have_header = 0, ncols = 0, in_measure = 0, threads_mode = 0;
	long tasks = 0;
	size_t rows = 0, nmeasure = 0, nraw = 0, araw = 0;
	struct wis_raw *raw = NULL;

	for (size_t i = 0; i < l->n; i++) {
		char *s = l->v[i];
		char *fld[WIS_COLS];
		size_t n;

		if (strstr(s, "Assertion") && strstr(s, "failed")) {
			parse_ctx_fail(c, "test aborted: %s", s);
			free(raw);
			return;
		}
		if (!strncmp(s, "tasks,", 6)) {
			char *copy = xstrdup(s);

			n = parse_split_char(copy, ',', fld, WIS_COLS);
			have_header = 1;
			ncols = (int)n;
			for (size_t k = 0; k < ARRAY_SIZE(wis_names); k++) {
				col[k] = -1;
				for (size_t j = 0; j < n; j++)
					if (!strcmp(fld[j], wis_names[k]))
						col[k] = (int)j;
				if (col[k] < 0)
					have_header = 0;
			}
			free(copy);
			if (!have_header)
				parse_ctx_note(c,
					       "csv header without the columns of runtest.py: %s",
					       s);
			continue;
		}
		if (have_header && strchr(s, ',')) {
			char *copy = xstrdup(s);
			double all[WIS_COLS], v[ARRAY_SIZE(wis_names)];
			int ok;

			n = parse_split_char(copy, ',', fld, WIS_COLS);
			ok = (int)n == ncols;
			for (size_t j = 0; ok && j < n; j++)
				ok = !parse_num_full(fld[j], &all[j]);
			free(copy);
			if (!ok)
				continue;
			for (size_t k = 0; k < ARRAY_SIZE(wis_names); k++)
				v[k] = all[col[k]];
			if (v[0] <= 0)
				continue; /* the 0,0,100,... baseline */
			if (v[0] != floor(v[0]) || v[0] > 1e9) {
				parse_ctx_note(c, "line %zu: tasks is not a task count, left out",
					       i + 1);
				continue;
			}
			wis_row(c, v);
			rows++;
			continue;
		}
		/* the raw binary's output: a command line with "-t N" starts a
		 * run of N tasks (else the binary's default, 1) */
		if (cmdline_tasks(s)) {
			tasks = cmdline_tasks(s);
			threads_mode = strstr(s, "_threads") != NULL;
		} else if (strstr(s, "_threads")) {
			threads_mode = 1;
		}
		if (!strcmp(s, "measurement")) {
			in_measure = 1;
		} else if (in_measure && !strncmp(s, "min:", 4) && strstr(s, "total:")) {
			nmeasure++;
		} else if (!strncmp(s, "average:", 8)) {
			double average;

			if (!parse_num_full(s + 8, &average) && average >= 0) {
				ALLOC_GROW(raw, nraw + 1, araw);
				raw[nraw].tasks = tasks ? tasks : c->tasks ? c->tasks : 1;
				raw[nraw].threads = threads_mode;
				raw[nraw++].average = average;
			}
			in_measure = 0;
			nmeasure = 0;
		}
	}
	if (rows) {
		free(raw);
		return;
	}
	if (nmeasure) {
		/* the last run has measurements but no average */
		parse_ctx_fail(c, "measurement without its average line (truncated output?)");
		free(raw);
		return;
	}
	for (size_t k = 0; k < nraw; k++) {
		long n = raw[k].tasks;

		parse_ctx_addf(c, raw[k].average, "%ld.%s", n,
			       raw[k].threads ? "threads" : "processes");
		parse_ctx_addf(c, floor(raw[k].average / (double)n), "%ld.per_%s_ops", n,
			       raw[k].threads ? "thread" : "process");
		parse_ctx_addf(c, raw[k].average, "%ld.workload", n);
	}
	free(raw);
	if (nraw)
		return;
	if (have_header)
		parse_ctx_fail(c, "csv header but no result row (the run failed or was cut short)");
	else
		parse_ctx_fail(c,
			       "no will-it-scale result (neither runtest.py csv nor average line)");
}

/*
 * vm-scalability: the output of its case-* scripts, one or more runs per
 * file (a run starts at a "./case-NAME" command line; without one, the
 * file is one run). Recognised lines, in any order within a run:
 *
 *   B bytes / U usecs = K KB/s                 (usemem, one per task)
 *   U usecs to free memory                     (usemem)
 *   B bytes VERB in S seconds                  (truncate, fault, remap, …)
 *   B bytes VERB in T1-T0 seconds              (elapsed as an epoch difference)
 *
 * Every usemem task prints one "KB/s" line and one "usecs to free memory"
 * line: a run whose counts of the two differ (a task that did not report,
 * output cut short: 3 of 4 tasks would give a throughput 25 % low) fails
 * the whole parse, naming both counts; so does a run whose usemem command
 * line is in the output ("… usemem … -n N …") with other than N of them.
 *
 * A duration line gives B / 1024 / S KB/s for its task. "faulted" lines of
 * a run that also has other lines (case-truncate: fault the file, then
 * truncate it) are the secondary figure and get the suffix "_fault".
 *
 * Per run, as LKP's stats/vm-scalability computes them from the task
 * values K_1..K_n (KB/s):
 *   throughput = sum K_i
 *   median     = sorted(K)[n / 2]
 *   stddev%    = 100 * n * pstdev(K) / mean(K)  (LKP's formula: the spread
 *                of a task scaled to the whole run)
 *   free_time  = mean of "usecs to free memory" / 1e6, in seconds
 *   workload   = sum B / 1024 of the primary lines (KB moved)
 * and throughput_fault, median_fault, stddev_fault% from "faulted" lines.
 * LKP reports the mean of throughput and median over runs and their
 * spread across runs (stddev%, median_stddev%); we give one value per run
 * and leave aggregation to the comparison.
 */
#include "parse/parse_tool.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

struct vms_series {
	double *v;
	size_t n, alloc;
	double kb; /* sum of B / 1024 */
};

struct vms_run {
	struct vms_series main, fault, other_fault;
	double free_sum;
	size_t free_n;
	size_t usemem_n; /* "KB/s" lines */
	long tasks;	 /* N of a "usemem … -n N" command line, or 0 */
	int has_other;	 /* a non-"faulted" line was seen */
};

static void series_add(struct vms_series *s, double v, double kb)
{
	ALLOC_GROW(s->v, s->n + 1, s->alloc);
	s->v[s->n++] = v;
	s->kb += kb;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void series_emit(struct parse_ctx *c, struct vms_series *s, const char *sfx,
			int with_workload)
{
	double sum = 0, mean, var = 0;
	double *sorted;

	if (!s->n)
		return;
	for (size_t i = 0; i < s->n; i++)
		sum += s->v[i];
	mean = sum / (double)s->n;
	for (size_t i = 0; i < s->n; i++)
		var += (s->v[i] - mean) * (s->v[i] - mean);
	var /= (double)s->n;
	sorted = xmalloc(s->n * sizeof(*sorted));
	memcpy(sorted, s->v, s->n * sizeof(*sorted));
	qsort(sorted, s->n, sizeof(*sorted), cmp_double);

	parse_ctx_addf(c, sum, "throughput%s", sfx);
	parse_ctx_addf(c, sorted[s->n / 2], "median%s", sfx);
	if (mean > 0)
		parse_ctx_addf(c, 100.0 * (double)s->n * sqrt(var) / mean, "stddev%s%%", sfx);
	if (with_workload)
		parse_ctx_add(c, "workload", s->kb);
	free(sorted);
}

static void run_flush(struct parse_ctx *c, struct vms_run *r, size_t *runs)
{
	struct vms_series *fault = &r->fault;

	if (r->usemem_n != r->free_n && (r->usemem_n || r->free_n) && !c->failed)
		parse_ctx_fail(c,
			       "run %zu: %zu tasks printed 'KB/s' and %zu 'usecs to free "
			       "memory': every task prints both (a task failed or the output "
			       "was cut short)",
			       *runs + 1, r->usemem_n, r->free_n);
	if (r->tasks && r->usemem_n && (size_t)r->tasks != r->usemem_n && !c->failed)
		parse_ctx_fail(c, "run %zu: usemem ran %ld tasks, %zu reported", *runs + 1,
			       r->tasks, r->usemem_n);

	if (!r->has_other && !r->main.n) {
		/* only "faulted" lines: they are the main figure */
		r->main = r->fault;
		memset(&r->fault, 0, sizeof(r->fault));
		fault = &r->fault;
	}
	if (r->main.n || fault->n) {
		series_emit(c, &r->main, "", 1);
		series_emit(c, fault, "_fault", 0);
		if (r->free_n)
			parse_ctx_add(c, "free_time", r->free_sum / (double)r->free_n / 1e6);
		(*runs)++;
	}
	free(r->main.v);
	free(r->fault.v);
	memset(r, 0, sizeof(*r));
}

/* "S" or "T1-T0" seconds, the difference taken without losing the
 * nanoseconds to the epoch's magnitude. */
static int parse_seconds(const char *s, const char **end, double *out)
{
	double a, b;
	const char *p;

	if (parse_num(s, &p, &a))
		return -1;
	if (*p == '-' && !parse_num(p + 1, end, &b)) {
		double ai = trunc(a), bi = trunc(b);
		const char *fa = strchr(s, '.'), *fb = strchr(p + 1, '.');
		double fra = 0, frb = 0;

		/* re-read the fractions on their own for full precision */
		if (fa && fa < p && parse_num(fa, NULL, &fra))
			return -1;
		if (fb && fb < *end && parse_num(fb, NULL, &frb))
			return -1;
		if (a < 0 || b < 0)
			return -1;
		*out = (ai - bi) + (fra - frb);
		return 0;
	}
	*end = p;
	*out = a;
	return 0;
}

void parse_vm_scalability(struct parse_ctx *c, struct parse_lines *l)
{
	struct vms_run r;
	size_t runs = 0;

	memset(&r, 0, sizeof(r));
	for (size_t i = 0; i < l->n; i++) {
		const char *s = parse_skip_blank(l->v[i]);
		const char *p;
		double b, u, k, secs;

		if (strstr(s, "./case-")) {
			run_flush(c, &r, &runs);
			continue;
		}
		if (strstr(s, "usemem") && (p = strstr(s, " -n ")) &&
		    !parse_num(parse_skip_blank(p + 4), NULL, &b) && b >= 1 && b < 1e7 &&
		    b == floor(b)) {
			r.tasks = (long)b;
			continue;
		}
		if (parse_num(s, &p, &b))
			continue;
		if (!strncmp(p, " bytes / ", 9) && !parse_num(p + 9, &p, &u) &&
		    !strncmp(p, " usecs = ", 9) && !parse_num(p + 9, &p, &k) &&
		    !strcmp(parse_rtrim((char *)p), " KB/s")) {
			series_add(&r.main, k, b / 1024);
			r.has_other = 1;
			r.usemem_n++;
			continue;
		}
		if (!strcmp(parse_rtrim((char *)p), " usecs to free memory")) {
			r.free_sum += b;
			r.free_n++;
			continue;
		}
		if (!strncmp(p, " bytes ", 7)) {
			const char *verb = p + 7, *in = strstr(verb, " in ");
			int faulted;

			if (!in || parse_seconds(in + 4, &p, &secs) ||
			    strcmp(parse_rtrim((char *)p), " seconds"))
				continue;
			if (secs <= 0) {
				parse_ctx_note(c,
					       "line %zu: elapsed time is not positive, left out",
					       i + 1);
				continue;
			}
			faulted = (size_t)(in - verb) == 7 && !strncmp(verb, "faulted", 7);
			if (faulted) {
				series_add(&r.fault, b / 1024 / secs, b / 1024);
			} else {
				series_add(&r.main, b / 1024 / secs, b / 1024);
				r.has_other = 1;
			}
		}
	}
	run_flush(c, &r, &runs);
	if (c->failed)
		return;
	if (!runs)
		parse_ctx_fail(c,
			       "no vm-scalability result lines (the case failed or was cut short)");
}

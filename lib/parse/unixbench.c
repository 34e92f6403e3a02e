/*
 * unixbench: the report of UnixBench's Run script, single-test or full,
 * one or more passes ("running N parallel copies of tests"). Per pass,
 * with C its number of copies:
 *
 *   unixbench.C.TEST        the test's result in its own unit (lps, KBps,
 *                           MWIPS, lpm), TEST the test's name in lowercase
 *                           with '_' ("execl_throughput")
 *   unixbench.C.TEST.index  its index (result / baseline * 10)
 *   unixbench.C.score       "System Benchmarks Index Score" (or the
 *                           "(Partial Only)" score)
 *
 * and, for a pass that ran exactly one test (LKP's usual job), LKP's
 * unixbench.score (the index score), unixbench.throughput (the result)
 * and unixbench.workload = throughput * the pass's wall time in seconds
 * ("Benchmark Run: Tue Jan 02 2024 22:11:05 - 22:19:05"). Repeated passes
 * add values. A pass without its index score line is cut short: failed.
 */
#include "parse/parse_tool.h"

#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

struct ub_pass {
	int active;
	long copies;
	size_t ntests;
	double first_result;
	double seconds; /* < 0 when unknown */
	int in_index;
};

/* "hh:mm:ss" at s -> seconds, or -1 */
static double clock_secs(const char *s)
{
	double h, m, sec;
	const char *p;

	if (parse_num(s, &p, &h) || *p != ':' || parse_num(p + 1, &p, &m) || *p != ':' ||
	    parse_num(p + 1, &p, &sec))
		return -1;
	return h * 3600 + m * 60 + sec;
}

static double run_seconds(const char *s)
{
	const char *dash = strstr(s, " - ");
	const char *p;
	double a, b;

	if (!dash)
		return -1;
	/* the start time is the last "hh:mm:ss" before the dash */
	for (p = dash; p > s && p[-1] != ' '; p--)
		;
	a = clock_secs(p);
	b = clock_secs(parse_skip_blank(dash + 3));
	if (a < 0 || b < 0)
		return -1;
	if (b < a)
		b += 86400;
	return b - a;
}

/* "NAME   RESULT UNIT  (D s, N samples)" -> name (new), result */
static char *result_line(const char *s, double *result)
{
	const char *open = strstr(s, " s, ");
	const char *q, *name_end;
	double v;

	if (!open || !strstr(open, "samples)"))
		return NULL;
	/* back from the '(' to the number before the unit */
	q = strrchr(s, '(');
	if (!q || q > open)
		return NULL;
	while (q > s && q[-1] == ' ')
		q--;
	while (q > s && q[-1] != ' ')
		q--; /* unit */
	while (q > s && q[-1] == ' ')
		q--;
	name_end = q;
	while (q > s && q[-1] != ' ')
		q--; /* number */
	if (parse_num(q, NULL, &v) || q == s)
		return NULL;
	name_end = q;
	while (name_end > s && name_end[-1] == ' ')
		name_end--;
	if (name_end == s)
		return NULL;
	*result = v;
	return xstrndup(s, (size_t)(name_end - s));
}

static void pass_end(struct parse_ctx *c, struct ub_pass *p, int has_score, double score)
{
	if (!p->active)
		return;
	if (!has_score) {
		parse_ctx_fail(c, "pass with %ld copies has no index score (truncated output?)",
			       p->copies);
	} else {
		parse_ctx_addf(c, score, "%ld.score", p->copies);
		if (p->ntests == 1) {
			parse_ctx_add(c, "score", score);
			parse_ctx_add(c, "throughput", p->first_result);
			if (p->seconds > 0)
				parse_ctx_add(c, "workload", p->first_result * p->seconds);
		}
	}
	memset(p, 0, sizeof(*p));
}

void parse_unixbench(struct parse_ctx *c, struct parse_lines *l)
{
	struct ub_pass p;

	memset(&p, 0, sizeof(p));
	for (size_t i = 0; i < l->n && !c->failed; i++) {
		char *s = l->v[i];
		const char *q;
		char *name;
		double v;

		if (!strncmp(s, "Benchmark Run:", 14)) {
			pass_end(c, &p, 0, 0);
			p.active = 1;
			p.copies = 1;
			p.seconds = run_seconds(s);
			continue;
		}
		if (!p.active)
			continue;
		if ((q = strstr(s, "; running ")) && !parse_num(q + 10, NULL, &v) && v >= 1 &&
		    v < 1e9) {
			p.copies = (long)v;
			continue;
		}
		if (!strncmp(s, "System Benchmarks Index Score", 29)) {
			char *last = strrchr(parse_rtrim(s), ' ');

			if (last && !parse_num_full(last, &v))
				pass_end(c, &p, 1, v);
			continue;
		}
		if (!strncmp(s, "System Benchmarks", 17) && strstr(s, "BASELINE")) {
			p.in_index = 1;
			continue;
		}
		if (p.in_index) {
			/* NAME  BASELINE RESULT INDEX */
			char *tok[3], *copy;
			char *t;
			double idx;
			int k;

			parse_rtrim(s);
			t = s + strlen(s);
			for (k = 0; k < 3; k++) {
				while (t > s && t[-1] != ' ')
					t--;
				tok[2 - k] = t;
				while (t > s && t[-1] == ' ')
					t--;
			}
			if (t == s || parse_num_full(tok[2], &idx) || parse_num(tok[0], NULL, &v) ||
			    parse_num(tok[1], NULL, &v))
				continue;
			copy = xstrndup(s, (size_t)(t - s));
			name = parse_slug(copy);
			if (*name)
				parse_ctx_addf(c, idx, "%ld.%s.index", p.copies, name);
			free(name);
			free(copy);
			continue;
		}
		if ((name = result_line(s, &v))) {
			char *slug = parse_slug(name);

			if (*slug) {
				parse_ctx_addf(c, v, "%ld.%s", p.copies, slug);
				if (!p.ntests++)
					p.first_result = v;
			}
			free(slug);
			free(name);
		}
	}
	if (!c->failed)
		pass_end(c, &p, 0, 0);
	if (!c->failed && !parse_ctx_count(c))
		parse_ctx_fail(c, "no unixbench report (no \"Benchmark Run:\" pass)");
}

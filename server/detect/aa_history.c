/* A setup's A/A spread from its stored history (aa_history.h). */
#include "server/detect/aa_history.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int aa_history_load(struct db_conn *c, const long long *setup_ids, size_t n, long long skip_a,
		    long long skip_b, struct aa_history *h, struct err *e)
{
	return db_compare_aa(c, skip_a, skip_b, setup_ids, n, &h->runs, e);
}

static int cmp_int(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;

	return (a > b) - (a < b);
}

void aa_history_spread(const struct aa_history *h, long long setup_id, long long metric_id,
		       long long skip_a, long long skip_b, struct aa_spread *out)
{
	const struct db_compare_run *runs = h->runs.runs;
	size_t lo = 0, hi = h->runs.nr, v_n = 0;
	double *v;
	int id = (int)metric_id;

	aa_spread_init(out);
	/* the setup's rows: the first at or after setup_id (rows by setup) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (runs[mid].setup_id < setup_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (hi = lo; hi < h->runs.nr && runs[hi].setup_id == setup_id; hi++)
		;
	if (hi == lo)
		return;
	v = xmalloc((hi - lo) * sizeof(*v));
	for (size_t g = lo; g < hi;) {
		size_t end = g;

		v_n = 0;
		for (; end < hi && runs[end].kernel == runs[g].kernel; end++) {
			const struct db_compare_run *u = &runs[end];
			const int *at;

			if ((skip_a && u->commit_id == skip_a) ||
			    (skip_b && u->commit_id == skip_b))
				continue;
			at = bsearch(&id, u->metric_ids, (size_t)u->n, sizeof(int), cmp_int);
			if (at)
				v[v_n++] = u->means[at - u->metric_ids];
		}
		aa_spread_add(out, v, v_n);
		g = end;
	}
	free(v);
}

void aa_history_release(struct aa_history *h)
{
	db_compare_runs_free(&h->runs);
}
